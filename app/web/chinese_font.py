#!/usr/bin/python3
# The web page's Chinese fonts, cut from Debian's WenQuanYi Micro Hei (5 MB) by fontTools' subsetter
# (python3-fonttools) at build time:
#   name  OUT  just "简体中文", the language combo's word in an English page (a few kB, always loaded)
#   full  OUT  every character of the Chinese string table, the lessons and the presets, and the
#              3755 common characters of GB 2312 level 1 (typed text, imported tokens): ~0.7 MB,
#              fetched only when Chinese is chosen
# Usage: chinese_font.py name|full SOURCE_TTC OUT ASSETS_DIR
import sys

import font_subset


def gb2312_level_one():
    characters = set()
    for high in range(0xB0, 0xD8):
        for low in range(0xA1, 0xFF):
            try:
                characters.add(bytes([high, low]).decode("gb2312"))
            except UnicodeDecodeError:
                pass  # the five unused cells at the end of row 55
    return characters


def main():
    mode, source, out, assets = sys.argv[1:5]
    characters = set("简体中文")
    if mode == "full":
        characters |= font_subset.text_characters(assets, "zh-CN.json") | gb2312_level_one()
    characters = {c for c in characters if ord(c) >= 0x80}  # ASCII and Latin come from DejaVu Sans
    chosen = font_subset.options()
    chosen.font_number = 0
    font_subset.write(source, out, chosen, {ord(c) for c in characters})


if __name__ == "__main__":
    main()
