#!/usr/bin/env python3
"""Reference values for LocationCore's JSONText and XMLText (Sources/LocationCore/Text/).

Writes Tests/LocationCoreTests/Fixtures/text-escaping.json: a list of cases, each with

  input   the text, as a list of Unicode code points (so the fixture itself cannot be misread)
  json    the JSON string literal locsim writes: `"` and `\\` backslash-escaped; LF, CR and TAB as
          \\n, \\r, \\t; the other code points below U+0020 as \\u00xx (lower-case hex); everything
          else as itself
  xml     the text with & < > " ' replaced by &amp; &lt; &gt; &quot; &apos; and TAB, LF, CR by
          &#9; &#10; &#13;
  read_content, read_attribute
          (only where XML allows the text) what a conformant XML reader gives back when the
          text is written with only & < > " escaped, so that tabs and line ends stand literally:
          from element content (XML 1.0 section 2.11: CR LF and a lone CR become LF) and from an
          attribute value (section 3.3.3: each literal TAB, LF or CR becomes a space, after the
          line-end rule), as code points; read by xml.etree (expat)

Before writing, every case is checked against independent readers: Python's json.loads must give
the input back from the literal, and xml.etree must give exactly the input back from element
content and from attribute values in both quote styles, wherever XML allows the text at all
(XML 1.0 forbids the control characters other than TAB, LF and CR; those cases skip the XML
check). Written literally, a CR LF would come back as LF and a TAB, LF or CR inside an attribute
as a space; the character references keep them.

Needs: Python 3 (standard library only).
"""

import json
import os
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Tests", "LocationCoreTests", "Fixtures", "text-escaping.json")

CASES = [
    "",
    "plain ASCII",
    'a "quoted" word',
    "back\\slash and \\\\ two",
    "/dev/odd \"name\"\\with\ttab",
    "".join(chr(c) for c in range(0x20)),  # every control character
    "line\nfeed, carriage\rreturn, CR LF\r\n, tab\t",
    "bell \x07 backspace \x08 form feed \x0c escape \x1b unit separator \x1f",
    "delete \x7f and C1 \x85 \x9f",
    "naïve café, Zürich, Øresund",
    "東京タワー, 渋谷",
    "emoji 🗺️ and a flag 🇯🇵",
    "combining e\u0301 and precomposed é",
    "separators \u2028 and \u2029",
    "byte order mark \ufeff inside",
    "slash / is kept",
    "</script><!-- & -->",
    "Tom's & Jerry's <caf\u00e9> \"bar\"",
    "apostrophe ' alone",
    "\U0010ffff last scalar",
]


def json_literal(text):
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20:
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


XML_ENTITIES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;",
    "\t": "&#9;", "\n": "&#10;", "\r": "&#13;",
}


def xml_escaped(text):
    return "".join(XML_ENTITIES.get(ch, ch) for ch in text)


def xml_allows(text):
    return all(ord(ch) >= 0x20 or ch in "\t\n\r" for ch in text) and "\ufffe" not in text


def literal_reads(text):
    """What xml.etree reads back from content and from an attribute written with only markup escaped."""
    markup = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    content = ElementTree.fromstring("<r>" + markup + "</r>").text or ""
    attribute = ElementTree.fromstring('<r a="' + markup + '"/>').get("a")
    return [ord(ch) for ch in content], [ord(ch) for ch in attribute]


def check(text, literal, escaped):
    assert json.loads(literal) == text, (text, literal)
    assert json.loads("[" + literal + "]") == [text]
    if not xml_allows(text):
        return
    # Exactly the text back, line breaks and tabs included, from content and from attributes.
    content = ElementTree.fromstring("<r>" + escaped + "</r>").text or ""
    assert content == text, (text, content)
    for quote in "\"'":
        element = ElementTree.fromstring("<r a=" + quote + escaped + quote + "/>")
        assert element.get("a") == text, (text, element.get("a"))


def main():
    cases = []
    for text in CASES:
        literal, escaped = json_literal(text), xml_escaped(text)
        check(text, literal, escaped)
        case = {"input": [ord(ch) for ch in text], "json": literal, "xml": escaped}
        if xml_allows(text):
            case["read_content"], case["read_attribute"] = literal_reads(text)
        cases.append(case)
    with open(OUT, "w") as handle:
        handle.write("[\n" + ",\n".join(json.dumps(case, ensure_ascii=True) for case in cases) + "\n]\n")


if __name__ == "__main__":
    main()
