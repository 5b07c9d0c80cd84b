"""The language identifier: short real-looking sentences, declared codes, what it must not guess."""

from __future__ import annotations

import pytest

from mirage_pipeline.chunking import ChunkingPolicy, chunk_document
from mirage_pipeline.language import detect_language, identify_language, normalise_language
from mirage_pipeline.parsing.model import Block, ParsedDocument, Section

SENTENCES = {
    "en": "The package is built in a clean chroot, so that missing build dependencies are "
    "found early. If you find any problems, please report a bug on Launchpad.",
    "de": "Das Paket wird in einer sauberen Umgebung gebaut, damit fehlende Abhängigkeiten "
    "früh auffallen. Wenn Sie Probleme finden, melden Sie bitte einen Fehler.",
    "fr": "Le paquet est construit dans un environnement propre, pour que les dépendances "
    "manquantes soient trouvées tôt. Si vous trouvez des problèmes, signalez un bogue.",
    "es": "El paquete se construye en un entorno limpio, para que las dependencias que faltan "
    "se encuentren pronto. Si encuentra algún problema, por favor informe de un error.",
    "pt": "O pacote é construído em um ambiente limpo, para que as dependências que faltam "
    "sejam encontradas cedo. Se você encontrar problemas, por favor relate um erro.",
    "it": "Il pacchetto viene costruito in un ambiente pulito, così le dipendenze mancanti "
    "sono trovate presto. Se trovi problemi, per favore segnala un errore.",
    "nl": "Het pakket wordt in een schone omgeving gebouwd, zodat ontbrekende "
    "afhankelijkheden vroeg worden gevonden. Als je problemen vindt, meld dan een fout.",
    "sv": "Paketet byggs i en ren miljö, så att saknade beroenden hittas tidigt och inte "
    "senare. Om du hittar problem, rapportera ett fel.",
    "no": "Pakken bygges i et rent miljø, slik at manglende avhengigheter blir funnet tidlig. "
    "Hvis du finner problemer, må du rapportere en feil, og det er også fint.",
    "da": "Pakken bygges i et rent miljø, så manglende afhængigheder bliver fundet tidligt. "
    "Hvis du finder problemer, skal du rapportere en fejl, og det er også fint.",
    "fi": "Paketti käännetään puhtaassa ympäristössä, jotta puuttuvat riippuvuudet löydetään "
    "ajoissa. Jos löydät ongelmia, ilmoita siitä, mutta se ei ole pakollista.",
    "hu": "A csomagot tiszta környezetben építjük, hogy a hiányzó függőségek korán "
    "kiderüljenek. Ha hibát talál, kérjük, jelentse azt, de nem kell sietni.",
    "ro": "Pachetul este construit într-un mediu curat, pentru ca dependențele lipsă să fie "
    "găsite din timp. Dacă găsiți probleme, vă rugăm să raportați o eroare.",
    "tr": "Paket temiz bir ortamda derlenir, böylece eksik bağımlılıklar çok daha erken "
    "bulunur. Bir sorun bulursanız, lütfen bir hata bildirin.",
    "ru": "Пакет собирается в чистом окружении, чтобы отсутствующие зависимости обнаружились "
    "заранее. Если вы нашли ошибку, сообщите о ней на Launchpad.",
    "uk": "Пакунок збирається у чистому середовищі, щоб відсутні залежності було виявлено "
    "заздалегідь. Якщо ви знайшли помилку, повідомте про неї на Launchpad.",
}


@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_short_sentences_are_identified(lang: str) -> None:
    assert identify_language(SENTENCES[lang]) == lang
    assert detect_language(SENTENCES[lang]) == lang


@pytest.mark.parametrize(
    "question",
    [
        "What should my program do if memory-mapping a particular file doesn't work?",
        "Someone sent me a two-line bug fix for a GNU package — do I need copyright paperwork?",
        "How do I give my container a custom name?",
        "Why does a Makefile set the shell?",
    ],
)
def test_short_english_questions_are_english(question: str) -> None:
    # their few function words ("a", "do", "my") once made them Portuguese or nothing, and a
    # question taken for Portuguese finds every English book blind to its words (search_sql.py)
    assert identify_language(question) == "en"


def test_russian_and_english_chunks_keep_their_codes() -> None:
    # Russian prose with commands and names in it stays Russian; Russian-commented code where
    # Latin letters dominate stays English, as the alphabet count always made it.
    assert (
        detect_language("Выполните команду sudo apt-get install pbuilder, затем настройте его.")
        == "ru"
    )
    assert detect_language("\\newcommand{\\eskd@i}{} \\fi \\put(0,0){a} % графа") == "en"
    assert detect_language("$ dpkg-buildpackage -us -uc") == "en"
    assert detect_language("12 345 — 67") == "other"
    # Russian prose beside a listing longer than itself: its words are what a question
    # matches (russ.sty: "Пользоваться пакетом очень просто. Вместо \usepackage…").
    assert (
        detect_language(
            "Пользоваться пакетом очень просто. Вместо \\usepackage{cmap} "
            "\\usepackage[T2A]{fontenc} \\usepackage[cp1251]{inputenc} "
            "\\usepackage[russian]{babel} пишем просто \\usepackage{russ}"
        )
        == "ru"
    )


def test_what_it_does_not_guess() -> None:
    assert identify_language("$ bzr builddeb -- -nc") is None  # a command, no function words
    assert identify_language("2021-10-24") is None
    # Russian typeset in an 8-bit encoding and read as Latin-1: not Italian, not French.
    assert identify_language("Ïðåäèñëîâèå è ââåäåíèå â ñèñòåìó âåðñòêè") is None


def test_addresses_markup_and_identifiers_cast_no_vote() -> None:
    """rclone's list of contributors ("com" of every e-mail address is Portuguese for "with")
    and the CommonMark spec's HTML examples ("em" is Portuguese for "in") were indexed as
    Portuguese: stemmed so, none of their words matched an English question."""
    contributors = "\n".join(
        f"  * {name} <{user}@{host}.com>"
        for name, user, host in [
            ("Alex Couper", "amcouper", "gmail"),
            ("Leonid Shalupov", "leonid", "shalupov"),
            ("Antonio Messina", "antonio.s.messina", "gmail"),
            ("Edward Q. Bridges", "github", "eqbridges"),
            ("Will Gunn", "WillGunn", "users.noreply.github"),
            ("Mark Otway", "mark", "otway"),
        ]
    )
    assert detect_language(contributors) == "en"
    html = "<p><strong>foo <em>bar</em> baz</strong></p>\n<p><em>foo</em> <em>bar</em></p>"
    assert detect_language(html) == "en"
    # prose still tells, its words beside an address or a path as well
    assert identify_language(SENTENCES["pt"] + " Veja https://exemplo.com.br/docs") == "pt"


@pytest.mark.parametrize(
    ("code", "normal"),
    [
        ("pt_BR", "pt"),
        ("pt-BR", "pt"),
        ("en-US", "en"),
        ("EN", "en"),
        ("rus", "ru"),
        ("ger", "de"),
        ("nb", "no"),
        ("", None),
        ("x-unknown-42", None),
        (None, None),
    ],
)
def test_declared_codes_are_normalised(code: str | None, normal: str | None) -> None:
    assert normalise_language(code) == normal


def test_the_chunker_takes_the_declared_language_over_its_own_guess() -> None:
    declared = Block("paragraph", "Setting up sbuild is described below.", lang="ru")
    undeclared = Block("paragraph", "Der Build läuft in einer sauberen Umgebung und ist schnell.")
    root = Section(
        "",
        0,
        children=[
            Section("Один", 1, blocks=[declared]),
            Section("Zwei", 1, blocks=[undeclared]),
        ],
    )
    chunks = chunk_document(
        ParsedDocument("epub", "Book", root),
        lambda text: len(text.split()) + 2,
        ChunkingPolicy.for_window(512),
    )
    assert [c.lang for c in chunks] == ["ru", "de"]


# --- a document's language (parsed_document's metadata in Dagster) ----------------------------

FRONT_MATTER_EN = "Copyright notice. This book is free software; you can redistribute it."


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        (
            "notes.md",
            f"# Заметки\n\n{FRONT_MATTER_EN}\n\n" + f"## Глава\n\n{SENTENCES['ru']}\n\n" * 3,
            "ru",  # most of the text, not the English notice on top
        ),
        ("readme.txt", f"{SENTENCES['de']}\n\n{SENTENCES['de']}\n", "de"),
        ("declared.md", f"---\nlanguage: pt-BR\n---\n# T\n\n{SENTENCES['en']}\n", "pt-BR"),
        ("code.md", "# API\n\n```\nmake install && make test\n```\n", None),  # cannot tell
    ],
)
def test_every_document_names_its_language(name: str, data: str, expected: str | None) -> None:
    from mirage_pipeline.parsing import parse_document

    doc = parse_document(data.encode(), name)
    assert doc.metadata.get("language") == expected


def test_epub_and_fb2_without_a_declared_language_get_the_detected_one() -> None:
    from mirage_pipeline.parsing import parse_document
    from tests.unit.test_parsers import _epub, _fb2

    fb2 = _fb2("utf-8").replace(b"<lang>ru</lang>", b"")
    assert parse_document(fb2, "book.fb2").metadata["language"] == "ru"
    epub = _epub([("Chapter", f"<p>{SENTENCES['fr']}</p>" * 3)], language="")
    assert parse_document(epub, "book.epub").metadata["language"] == "fr"


def test_a_declared_language_of_another_alphabet_than_the_texts_is_the_texts() -> None:
    """A converter's default ("en" on a Russian book) names no language of the text; one of
    the text's alphabet stands (it may tell more than the text: Ukrainian, Portuguese)."""
    from mirage_pipeline.parsing import parse_document
    from tests.unit.test_parsers import _epub

    russian = _epub([("Глава", f"<p>{SENTENCES['ru']}</p>" * 3)], language="en")
    assert parse_document(russian, "book.epub").metadata["language"] == "ru"
    french = _epub([("Chapitre", f"<p>{SENTENCES['fr']}</p>" * 3)], language="pt-BR")
    assert parse_document(french, "livre.epub").metadata["language"] == "pt-BR"
