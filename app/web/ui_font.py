#!/usr/bin/python3
# The web page's UI font, cut from Debian's DejaVu Sans (760 kB, 382 kB gzip'd) by fontTools'
# subsetter (python3-fonttools) at build time: it is in the data every first visit downloads.
# Kept: the code point ranges the app's atlas loads (kUiGlyphRanges, read from
# app/platform/fonts.cpp so the two cannot drift apart), every character of the string tables, the
# lessons and the presets, and the scripts an imported token may be written in beside Chinese
# (Latin, its extensions and accents, Greek, Cyrillic, and the symbol blocks). Left out: what no
# text of the app and no European or Chinese token uses (Arabic, Hebrew, Armenian, Georgian,
# Canadian syllabics, Braille, mathematical alphanumerics, ...): a token in those scripts shows
# '?' on the page, as one does in the desktop window for a script DejaVu Sans lacks.
# Usage: ui_font.py SOURCE_TTF OUT FONTS_CPP ASSETS_DIR
import re
import sys

import font_subset

TOKEN_SCRIPTS = [
    (0x0020, 0x024F),  # Latin, Latin-1, Latin Extended-A and -B
    (0x0250, 0x036F),  # IPA, spacing modifiers, combining accents
    (0x0370, 0x03FF),  # Greek
    (0x0400, 0x052F),  # Cyrillic and its supplement
    (0x1E00, 0x1FFF),  # Latin Extended Additional, Greek Extended
    (0x2000, 0x27BF),  # punctuation, super/subscripts, currency, letterlike, number forms, arrows,
                       # mathematical operators, technical, box drawing, shapes, symbols, dingbats
]


def atlas_ranges(fonts_cpp):
    with open(fonts_cpp, encoding="utf-8") as handle:
        source = handle.read()
    table = re.search(r"kUiGlyphRanges\[\]\s*=\s*\{(.*?)\};", source, re.S)
    if table is None:
        sys.exit(f"ui_font.py: no kUiGlyphRanges in {fonts_cpp}")
    numbers = [int(n, 16) for n in re.findall(r"0x([0-9A-Fa-f]+)", re.sub(r"//[^\n]*", "", table.group(1)))]
    if len(numbers) < 2 or len(numbers) % 2:
        sys.exit(f"ui_font.py: kUiGlyphRanges in {fonts_cpp} is not pairs of code points")
    return list(zip(numbers[0::2], numbers[1::2]))


def main():
    source, out, fonts_cpp, assets = sys.argv[1:5]
    unicodes = set()
    for first, last in atlas_ranges(fonts_cpp) + TOKEN_SCRIPTS:
        unicodes.update(range(first, last + 1))
    unicodes.update(ord(c) for c in font_subset.text_characters(assets, "*.json"))
    chosen = font_subset.options()
    chosen.layout_features = ["*"]
    font_subset.write(source, out, chosen, unicodes)


if __name__ == "__main__":
    main()
