/* bcryptprimitives.dll for Wine 8 (Debian 12), which lacks it (Wine 9 has
 * it): Go 1.22 and later programs need its ProcessPrng at start-up and stop
 * with "bcryptprimitives.dll not found" without it. Built by
 * scripts/wine-prefix.sh with x86_64-w64-mingw32-gcc into the test prefix's
 * system32; never shipped. RtlGenRandom (advapi32's SystemFunction036) is
 * the random source Windows itself had before ProcessPrng. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
    while (size > 0) {
        ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        size -= n;
    }
    return TRUE;
}
