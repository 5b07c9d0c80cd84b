"""Slot → Unicode tables of the TeX Cyrillic font encodings T2A, X2, LCY and OT2.

Generated once from TeX's own definitions in Debian's texlive-lang-cyrillic 2022.20230122-1 and
texlive-latex-base 2022.20230122-3: each encoding's `<enc>enc.def` (slot → \\CYR… command)
read through the `<enc>enc.dfu` files (Unicode → command); the slots a .def leaves to the font
(ligatures, the alternative hyphen at 0x7F, ASCII) from the T2 bundle's `T2Auni.map`, `X2uni.map`
and `OT2uni.map`, and for LCY (OT1 below 0x80) from the T2 bundle's fontinst `lcy.etx`, glyph names
read through the Adobe Glyph List. Each table is 256 characters, NUL where a slot is empty.
"""

from __future__ import annotations

UNUSED = "\x00"

T2A = (
    "`´ˆ˜¨˝˚ˇ˘¯˙¸˛Ӏ〈〉"  # 00–0F
    "“”\uf6d5\uf6d6\uf6d4–—\u200c\x00ıȷﬀﬁﬂﬃﬄ"  # 10–1F
    '␣!"#$%&’()*+,-./'  # 20–2F
    "0123456789:;<=>?"  # 30–3F
    "@ABCDEFGHIJKLMNO"  # 40–4F
    "PQRSTUVWXYZ[\\]^_"  # 50–5F
    "‘abcdefghijklmno"  # 60–6F
    "pqrstuvwxyz{|}~-"  # 70–7F
    "ҐҒЂЋҺҖҘЉЇҚҠҜӔҢҤЅ"  # 80–8F
    "ӨҪЎҮҰҲЏҸҶЄӘЊЁ№¤§"  # 90–9F
    "ґғђћһҗҙљїқҡҝӕңҥѕ"  # A0–AF
    "өҫўүұҳџҹҷєәњё„«»"  # B0–BF
    "АБВГДЕЖЗИЙКЛМНОП"  # C0–CF
    "РСТУФХЦЧШЩЪЫЬЭЮЯ"  # D0–DF
    "абвгдежзийклмноп"  # E0–EF
    "рстуфхцчшщъыьэюя"  # F0–FF
)

X2 = (
    "`´ˆ˜¨˝˚ˇ˘¯˙¸˛Ӏ〈〉"  # 00–0F
    "“”\uf6d5\uf6d6\uf6d4–—\u200c\x00ˎˏ\u0335\x00\x00\x00\x00"  # 10–1F
    '␣!"#$%&’()*+,-./'  # 20–2F
    "0123456789:;<=>?"  # 30–3F
    "@ӔЂЋҼҾҜҞӅІЈЉӍЊҨҦ"  # 40–4F
    "\x00\x00ҬЅҴЏҸ\x00ѢѪѴ[\\]^_"  # 50–5F
    "‘ӕђћҽҿҝҟӆіјљӎњҩҧ"  # 60–6F
    "\x00\x00ҭѕҵџҹ\x00ѣѫѵ{|}~-"  # 70–7F
    "ҐҒӶҔҺҖҘӠЇҚҠӃ\x00ҢҤӇ"  # 80–8F
    "ӨҪЎҮҰҲӼӋҶЄӘ\x00Ё№¤§"  # 90–9F
    "ґғӷҕһҗҙӡїқҡӄ\x00ңҥӈ"  # A0–AF
    "өҫўүұҳӽӌҷєә\x00ё„«»"  # B0–BF
    "АБВГДЕЖЗИЙКЛМНОП"  # C0–CF
    "РСТУФХЦЧШЩЪЫЬЭЮЯ"  # D0–DF
    "абвгдежзийклмноп"  # E0–EF
    "рстуфхцчшщъыьэюя"  # F0–FF
)

LCY = (
    "Γ∆ΘΛΞΠΣΥΦΨΩﬀﬁﬂﬃﬄ"  # 00–0F
    "ıȷ`´ˇ˘¯\x00¸ßæœøÆŒØ"  # 10–1F
    "\x00!”#$%&’()*+,-./"  # 20–2F
    "0123456789:;¡=¿?"  # 30–3F
    "@ABCDEFGHIJKLMNO"  # 40–4F
    "PQRSTUVWXYZ[“]ˆ˙"  # 50–5F
    "‘abcdefghijklmno"  # 60–6F
    "pqrstuvwxyz–—˝˜¨"  # 70–7F (0x7B: the en dash of OT1, not a figure dash)
    "АБВГДЕЖЗИЙКЛМНОП"  # 80–8F
    "РСТУФХЦЧШЩЪЫЬЭЮЯ"  # 90–9F
    "абвгдежзийклмноп"  # A0–AF
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # B0–BF
    "\x00\x00\x00\x00—¤\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # C0–CF (C4: \cyrdash)
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # D0–DF
    "рстуфхцчшщъыьэюя"  # E0–EF
    "ЁёҐґЄєІіЇїЎў№«»„"  # F0–FF
)

OT2 = (
    "ЊЉЏЭІЄЂЋњљџэієђћ"  # 00–0F
    "ЮЖЙЁѴѲЅЯюжйёѵѳѕя"  # 10–1F
    "¨!”Ѣ\uf6d4%´’()*ѣ,-./"  # 20–2F
    "0123456789:;«ı»?"  # 30–3F
    "˘АБЦДЕФГХИЈКЛМНО"  # 40–4F
    "ПЧРСТУВЩШЫЗ[“]ЬЪ"  # 50–5F
    "‘абцдефгхијклмно"  # 60–6F
    "пчрстувщшыз–—№ьъ"  # 70–7F
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # 80–8F
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # 90–9F
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # A0–AF
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # B0–BF
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # C0–CF
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # D0–DF
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # E0–EF
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"  # F0–FF
)

# Accent slots (\\DeclareTextAccent): as text, marks set over the next letter (stress).
ACCENT_SLOTS: dict[str, frozenset[int]] = {
    "T2A": frozenset(
        {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x12, 0x13, 0x14}
    ),
    "X2": frozenset(
        {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x12, 0x13, 0x14}
    ),
    "LCY": frozenset({0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x5E, 0x5F, 0x7D, 0x7E, 0x7F}),
    "OT2": frozenset({0x20, 0x24, 0x26, 0x40}),
}

# TeX's Latin encodings, for old pdfTeX fonts without a Unicode map whose ligatures come out as
# control characters ("dierent" for "different"): OT1 is LCY's lower half; T1 (Cork) shares
# T2A's lower half but for its quotes and guillemets, and puts accented Latin letters above.
OT1 = LCY[:0x80] + UNUSED * 0x80
_T1_LOW = {0x0D: "‚", 0x0E: "‹", 0x0F: "›", 0x12: "„", 0x13: "«", 0x14: "»", 0x18: UNUSED}
T1 = (
    "".join(_T1_LOW.get(code, char) for code, char in enumerate(T2A[:0x80]))
    + "ĂĄĆČĎĚĘĞĹĽŁŃŇŊŐŔŘŚŠŞŤŢŰŮŸŹŽŻĲİđ§ăąćčďěęğĺľłńňŋőŕřśšşťţűůÿźžżĳ¡¿£"
    + "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖŒØÙÚÛÜÝÞẞàáâãäåæçèéêëìíîïðñòóôõöœøùúûüýþß"
)

# How often each Cyrillic letter occurs in running text, per 1000 letters (Russian; the
# letters of Ukrainian, Belarusian, Serbian and Macedonian at about their own languages'
# rates). A decoding that permutes the alphabet — KOI8 read as Windows-1251, "оЕ ПЮЕОШ" for
# "Не очень" — reads as words of the right script, but of unlikely letters.
_FREQUENCIES = """
о 110 е 85 а 80 и 74 н 67 т 63 с 55 р 47 в 45 л 44 к 35 м 32 д 30 п 28 у 26 я 20 ы 19 ь 17
г 17 з 16 б 16 ч 14 й 12 х 10 ж 9 ш 7 ю 6 ц 5 щ 4 э 3 ф 3 ё 2 ъ 0.4
і 55 ї 6 є 4 ґ 1 ў 10 ј 20 љ 5 њ 5 ћ 5 ђ 2 џ 2 ѕ 1 ѓ 1 ќ 1
"""
_PAIRS = _FREQUENCIES.split()
LETTER_FREQUENCY = {
    letter: float(rate) for letter, rate in zip(_PAIRS[::2], _PAIRS[1::2], strict=True)
}
