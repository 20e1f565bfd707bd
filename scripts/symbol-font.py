#!/usr/bin/env python3
"""symbol-font.py - build assets/fonts/LazuliSymbols-*.ttf, the font Lazuli's theme
puts in front of Fyne's Noto Sans so that arrows, box drawing, check marks and other
symbols agents print draw from a face that also has a space.

Why: Fyne 2.8.1 shapes text in runs of one face, and a space never starts a new run
(go-text assumes every face has one). Noto Sans has no arrows, so "→ " was shaped in
Fyne's InterSymbols face, which has no space: the space became glyph 0, drawn as "�".

What: the glyphs of DejaVu Sans (Bitstream Vera licence, see
assets/fonts/LICENSE-DejaVu.txt) for the symbol blocks below that Noto Sans lacks, plus
a space and a no-break space as wide as Noto's, with Noto Sans's vertical metrics so the
line height and baseline stay Noto's. Renamed "Lazuli Symbols" as the Vera licence asks
of modified copies.

Usage (Debian: apt-get install python3-fonttools fonts-dejavu-core fonts-dejavu-extra):
  scripts/symbol-font.py NOTO_SANS.ttf DEJAVU_SANS.ttf STYLE OUT.ttf
  e.g. scripts/symbol-font.py "$(go env GOMODCACHE)/fyne.io/fyne/v2@v2.8.1/theme/font/NotoSans-Regular.ttf" \
       /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf Regular assets/fonts/LazuliSymbols-Regular.ttf
"""
import sys

from fontTools import subset
from fontTools.ttLib import TTFont
from fontTools.ttLib.scaleUpem import scale_upem

BLOCKS = [
    (0x2100, 0x214F),  # letterlike symbols
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators
    (0x2300, 0x23FF),  # miscellaneous technical (⎿ ⏎ ⌘)
    (0x2460, 0x24FF),  # enclosed alphanumerics
    (0x2500, 0x257F),  # box drawing
    (0x2580, 0x259F),  # block elements
    (0x25A0, 0x25FF),  # geometric shapes
    (0x2600, 0x26FF),  # miscellaneous symbols
    (0x2700, 0x27BF),  # dingbats (✓ ✔ ✗ ✘ ❯)
    (0x27F0, 0x27FF),  # supplemental arrows-A
    (0x2900, 0x297F),  # supplemental arrows-B
    (0x2B00, 0x2BFF),  # miscellaneous symbols and arrows
]


def main(noto_path, dejavu_path, style, out_path):
    noto = TTFont(noto_path)
    font = TTFont(dejavu_path)
    have = set(noto.getBestCmap())
    wanted = {cp for cp in font.getBestCmap()
              if any(lo <= cp <= hi for lo, hi in BLOCKS) and cp not in have}
    opts = subset.Options()
    opts.hinting = False
    opts.name_IDs = [0, 13, 14]  # copyright and licence; the names are set below
    opts.name_languages = ["*"]
    opts.notdef_outline = True
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=wanted | {0x20, 0xA0})
    sub.subset(font)

    scale_upem(font, noto["head"].unitsPerEm)
    for table, fields in (("hhea", ("ascent", "descent", "lineGap")),
                          ("OS/2", ("sTypoAscender", "sTypoDescender", "sTypoLineGap",
                                    "usWinAscent", "usWinDescent"))):
        for f in fields:
            setattr(font[table], f, getattr(noto[table], f))
    font["OS/2"].fsSelection = (font["OS/2"].fsSelection & ~(1 << 7)) | (noto["OS/2"].fsSelection & (1 << 7))
    noto_space = noto["hmtx"][noto.getBestCmap()[0x20]][0]
    for cp in (0x20, 0xA0):
        g = font.getBestCmap()[cp]
        font["hmtx"][g] = (noto_space, font["hmtx"][g][1])

    name = font["name"]
    family, ps = "Lazuli Symbols", "LazuliSymbols-" + style
    for nid, value in ((1, family), (2, style), (3, ps), (4, family + " " + style), (6, ps)):
        name.setName(value, nid, 3, 1, 0x409)
    font.save(out_path)
    print(f"{out_path}: {len(wanted)} symbols")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
