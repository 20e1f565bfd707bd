package codec

import (
	"errors"
	"strconv"
	"sync"
)

// serde_json, as AZUREAL builds it (without its float_roundtrip feature),
// does not parse a JSON number with more digits than an f64 holds the
// correctly rounded way: it gathers up to 19 significant digits into a
// u64 (ignoring the rest), converts that to f64, and multiplies or divides
// by a power of ten, rounding twice. The result can be one unit in the
// last place away from the correctly rounded value (strconv.ParseFloat),
// and the stored text then differs. parseSerdeFloat does what serde_json
// does, so that stored payloads match AZUREAL's byte for byte.

// ErrNumberRange is serde_json's "number out of range": an f64 overflow.
var ErrNumberRange = errors.New("number out of range")

// pow10 is serde_json's POW10 table: the f64 nearest to 10^i, i in 0..308.
var pow10 = sync.OnceValue(func() [309]float64 {
	var t [309]float64
	for i := range t {
		t[i], _ = strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
	}
	return t
})

// ParseSerdeFloat parses a JSON number literal to the f64 AZUREAL's
// serde_json makes of it (see above). It fails on text that is not a JSON
// number, and with errNumberRange where serde_json does.
func ParseSerdeFloat(lit string) (float64, error) {
	bad := &strconv.NumError{Func: "ParseSerdeFloat", Num: lit, Err: strconv.ErrSyntax}
	i, positive := 0, true
	if i < len(lit) && lit[i] == '-' {
		positive = false
		i++
	}
	digit := func() (uint64, bool) {
		if i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			return uint64(lit[i] - '0'), true
		}
		return 0, false
	}
	var sig uint64
	var exp int64                      // serde keeps an i32; saturated below
	overflows := func(d uint64) bool { // overflow!(sig * 10 + d, u64::MAX)
		const m = ^uint64(0)
		return sig >= m/10 && (sig > m/10 || d > m%10)
	}
	switch d, ok := digit(); {
	case !ok:
		return 0, bad
	case d == 0:
		i++
	default:
		for d, ok := digit(); ok; d, ok = digit() {
			if overflows(d) { // parse_long_integer: further digits only scale
				for _, ok := digit(); ok; _, ok = digit() {
					exp++
					i++
				}
				break
			}
			sig = sig*10 + d
			i++
		}
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		if _, ok := digit(); !ok {
			return 0, bad
		}
		for d, ok := digit(); ok; d, ok = digit() {
			if overflows(d) { // parse_decimal_overflow: the rest is ignored
				for _, ok := digit(); ok; _, ok = digit() {
					i++
				}
				break
			}
			sig = sig*10 + d
			exp--
			i++
		}
	}
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		posExp := true
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			posExp = lit[i] == '+'
			i++
		}
		if _, ok := digit(); !ok {
			return 0, bad
		}
		var e int64
		for d, ok := digit(); ok; d, ok = digit() {
			if e >= (1<<31-1)/10 && (e > (1<<31-1)/10 || d > (1<<31-1)%10) { // parse_exponent_overflow
				if sig != 0 && posExp {
					return 0, ErrNumberRange
				}
				for _, ok := digit(); ok; _, ok = digit() {
					i++
				}
				if i != len(lit) {
					return 0, bad
				}
				return signed(0, positive), nil
			}
			e = e*10 + int64(d)
			i++
		}
		if posExp {
			exp += e
		} else {
			exp -= e
		}
	}
	if i != len(lit) {
		return 0, bad
	}
	exp = max(min(exp, 1<<31-1), -1<<31) // saturating_add/sub on i32
	f, err := f64FromParts(sig, exp)
	return signed(f, positive), err
}

// f64FromParts is serde_json's f64_from_parts for a positive significand.
func f64FromParts(sig uint64, exp int64) (float64, error) {
	t := pow10()
	f := float64(sig)
	for {
		if a := abs(exp); a < int64(len(t)) {
			if exp >= 0 {
				f *= t[a]
				if f > maxFloat64 {
					return 0, ErrNumberRange
				}
			} else {
				f /= t[a]
			}
			return f, nil
		}
		if f == 0 {
			return f, nil
		}
		if exp >= 0 {
			return 0, ErrNumberRange
		}
		f /= 1e308
		exp += 308
	}
}

const maxFloat64 = 1.7976931348623157e308

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func signed(f float64, positive bool) float64 {
	if positive {
		return f
	}
	return -f
}
