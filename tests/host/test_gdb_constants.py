"""The flag bits the gdb commands decode with (tools/gdb/kconst.py) are the kernel's: each is
compared with the #define or enum member of the header it names."""
import re
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools" / "gdb"))
import kconst  # noqa: E402  (pure Python: no gdb needed)


def c_value(text):
    text = re.sub(r"/\*.*?(\*/|$)", "", text).strip()     # a comment may go on past the line
    text = re.sub(r"(?<=[0-9a-fA-F])[uU]\b", "", text)
    return int(text, 0)


def test_every_define_matches_its_header():
    wrong = []
    for header, name, value in kconst.DEFINES:
        src = (ROOT / header).read_text()
        m = re.search(r"^#define\s+%s\s+(.+)$" % name, src, re.M)
        assert m, "%s does not define %s" % (header, name)
        if c_value(m.group(1)) != value:
            wrong.append((header, name, value, m.group(1)))
    assert not wrong, wrong


def test_every_enum_member_matches_its_header():
    for header, name, value in kconst.ENUMS:
        src = (ROOT / header).read_text()
        m = re.search(r"\b%s\s*=\s*([0-9xa-fA-F]+)" % name, src)
        assert m and int(m.group(1), 0) == value, (header, name, value)
