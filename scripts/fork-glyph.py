#!/usr/bin/env python3
"""fork-glyph.py - add U+2442 OCR FORK (⑂) to a Lazuli Symbols font.

Why: Lazuli names a forked session "<parent> ⑂ <n>", and neither Fyne's faces nor DejaVu
Sans (the source of scripts/symbol-font.py) has the character, so the window drew it as
"�". This draws it as a simple outline (a stem that splits into two legs), in the weight of
the font's arrows, and maps U+2442 to it. Run it after symbol-font.py.

Usage (Debian: apt-get install python3-fonttools):
  scripts/fork-glyph.py assets/fonts/LazuliSymbols-Regular.ttf 84
  scripts/fork-glyph.py assets/fonts/LazuliSymbols-Bold.ttf 130
  (the second argument is the stroke width in font units, 1000 to the em)
"""
import sys

from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont

NAME, CODE, ADVANCE = "uni2442", 0x2442, 838  # as wide as the arrows (U+21B3)


def rect(pen, x0, y0, x1, y1):
    pen.moveTo((x0, y0))
    pen.lineTo((x0, y1))
    pen.lineTo((x1, y1))
    pen.lineTo((x1, y0))
    pen.closePath()


def main(path, stroke):
    w = int(stroke)
    font = TTFont(path)
    pen = TTGlyphPen(None)
    mid, left, right, bar = ADVANCE // 2, 209, ADVANCE - 209, 300
    rect(pen, mid - w // 2, bar + w, mid + w - w // 2, 729)  # the stem
    rect(pen, left, bar, right, bar + w)                      # where it splits
    rect(pen, left, 0, left + w, bar)                          # the legs
    rect(pen, right - w, 0, right, bar)
    glyph = pen.glyph()
    if NAME not in font.getGlyphOrder():
        font.setGlyphOrder(font.getGlyphOrder() + [NAME])
    font["glyf"][NAME] = glyph
    glyph.recalcBounds(font["glyf"])
    font["hmtx"][NAME] = (ADVANCE, glyph.xMin)
    for table in font["cmap"].tables:
        if table.isUnicode():
            table.cmap[CODE] = NAME
    font["maxp"].numGlyphs = len(font.getGlyphOrder())
    font.save(path)
    print(f"{path}: U+2442 added")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
