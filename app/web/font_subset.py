# What the page's two font cutters (chinese_font.py, ui_font.py) share: the characters of the texts
# the app ships, and fontTools' subsetter (python3-fonttools) run to a file written whole.
import glob
import json
import os

from fontTools import subset


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def text_characters(assets, tables):
    """Every character of the string tables named by the glob `tables` (under assets/i18n), the
    presets and the lessons."""
    files = sorted(glob.glob(os.path.join(assets, "i18n", tables))) + [os.path.join(assets, "presets.json")]
    files += sorted(glob.glob(os.path.join(assets, "lessons", "*.json")))
    characters = set()
    for path in files:
        with open(path, encoding="utf-8") as handle:
            for text in strings(json.load(handle)):
                characters.update(text)
    return characters


def options():
    """The cutters' options: no hinting (the atlas rasterises without hints: stb_truetype) and no
    FontForge time stamp, so the same inputs give the same bytes."""
    chosen = subset.Options()
    chosen.hinting = False
    chosen.drop_tables += ["FFTM"]
    return chosen


def write(source, out, chosen, unicodes):
    """The font `source` cut to the code points `unicodes`, written to `out` through a temporary
    (a build that stops leaves no half-written font)."""
    font = subset.load_font(source, chosen)
    subsetter = subset.Subsetter(chosen)
    subsetter.populate(unicodes=sorted(unicodes))
    subsetter.subset(font)
    temporary = out + ".tmp"
    subset.save_font(font, temporary, chosen)
    os.replace(temporary, out)
