"""IT jargon and shorthand in a question, matched against the words a manual uses for them.

People ask in the words they speak: "баг", "мейнтейнер", "залить", "исходники", "конфиг",
"флешка". Manuals, and their translations above all, write "ошибка", "сопровождающий",
"загрузить", "исходный код", "файл настройки", "USB-накопитель" — and English text, untranslated
paragraphs of a Russian manual included, "bug", "maintainer", "upload". Neither snowball stems
nor lemmas join the two, and no synonym resource on PyPI or in Debian holds these senses
(wiki-ru-wordnet's synsets and the `mythes-ru` thesaurus were checked: no баг, патч, мейнтейнер
or залить). `_TABLE` is that resource, written by hand: common jargon and loanwords of Russian
IT speech, each with its literary Russian words and its English ones; `_TABLE_EN` the mirror for
an English question (agents write "config", "repo", "deps"): shorthand with its full words,
whose stems differ (`config`, `configur`), and its Russian ones.

A question's jargon word then becomes one full-text term whose alternatives are OR-ed — the
word as written or any of its literary equivalents, weighted by how rare they are together, as
one word of the question (the structured query the dictionary's translations use:
translation.py) — in its stems and in its lemmas; its English words join the word's dictionary
translations for English text. A passage saying "баг" matches it as before, one saying
"ошибка" as well. Query side only: nothing is indexed again. Dev eval (eval/run_eval.py),
hybrid recall@5 / @10 / MRR@10: Russian 0.857 / 0.910 / 0.728 → 0.860 / 0.913 / 0.732.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from psycopg import AsyncConnection

from mirage_pipeline.morphology import has_lemma, lemma, query_lemmas
from mirage_query.term_stats import TEXT_LEXEMES, TermStats, quoted

# jargon word (and its spellings), comma-separated: literary Russian words or phrases,
# comma-separated | English words or phrases, comma-separated
_TABLE = """
баг, бага: ошибка | bug
багрепорт, баг-репорт: отчёт об ошибке | bug report
багтрекер, баг-трекер: система отслеживания ошибок | bug tracker
глюк: ошибка, сбой | glitch, bug
краш: сбой, аварийное завершение | crash
фикс: исправление | fix
фиксить, пофиксить: исправить | fix
патч: заплата, исправление | patch
пропатчить: исправить | patch
мейнтейнер, мэйнтейнер, мантейнер, майнтейнер, мейнтейнир: сопровождающий | maintainer
апстрим: автор, разработчик | upstream
исходник, исходники, сорцы, сорц, сорс: исходный код, исходный текст | source
бинарник, бинарь: двоичный, исполняемый | binary
экзешник: исполняемый | executable
залить, заливать: загрузить, загружать | upload
аплоад: загрузка | upload
аплоадить: загрузить | upload
скачать, качать: загрузить, загружать | download
релиз: выпуск | release
апдейт: обновление | update
апдейтить: обновить | update
апгрейд: обновление | upgrade
апгрейдить: обновить | upgrade
фича: возможность, функция | feature
билд: сборка | build
сбилдить: собрать | build
коммит: фиксация | commit
закоммитить: зафиксировать | commit
бранч: ветка | branch
мерж, мердж: слияние | merge
смержить, смерджить: слить, объединить | merge
форк: ответвление | fork
репа, репо: репозиторий | repository
пулреквест, пул-реквест: запрос на слияние | pull request
ребут: перезагрузка | reboot
ребутнуть: перезагрузить | reboot
рестарт: перезапуск | restart
рестартнуть: перезапустить | restart
дебаг: отладка | debug
дебажить: отлаживать | debug
лог: журнал | log
конфиг: настройка, конфигурация | config, configuration
конфигурить: настраивать | configure
дефолт: умолчание | default
дефолтный: стандартный, умолчание | default
кастомный: собственный, пользовательский | custom
сетап: установка, настройка | setup
инсталлятор: установщик, программа установки | installer
инсталлировать, инсталлить: установить | install
комп: компьютер | computer
ноут: ноутбук | laptop
сервак: сервер | server
железо: оборудование, аппаратный | hardware
флешка, флэшка: флэш-накопитель, накопитель | flash drive, usb
виртуалка: виртуальная машина | virtual machine
прога: программа | program
софт: программа, программное обеспечение | software
тулза: утилита, инструмент | tool
либа: библиотека | library
плагин: расширение, модуль | plugin
аддон: дополнение, расширение | addon
дистр: дистрибутив | distribution
юзер: пользователь | user
юзать: использовать | use
админ, сисадмин: администратор | administrator
рут: суперпользователь | root
аккаунт: учётная запись | account
логин: имя пользователя, вход | login
залогиниться: войти | log in
папка: каталог | directory, folder
консоль: терминал, командная строка | console, terminal
гуй: графический интерфейс | gui
хоткей, шорткат: сочетание клавиш, горячая клавиша | shortcut, hotkey
кликнуть: щёлкнуть, нажать | click
скрин, скриншот: снимок экрана | screenshot
линк: ссылка | link
мануал, гайд: руководство | manual, guide
дока: документация | documentation
варнинг, ворнинг: предупреждение | warning
эррор: ошибка | error
тег, тэг: метка | tag
хеш, хэш: хэш, хеш | hash
кеш, кэш: кэш, кеш | cache
бэкап, бекап: резервная копия | backup
деплой: развёртывание | deployment
задеплоить: развернуть | deploy
тикет: заявка, запрос | ticket
парсить: разбирать | parse
парсер: анализатор | parser
рендерить: отрисовывать, отображать | render
сниппет: фрагмент | snippet
тарбол: архив | tarball
чейнджлог: журнал изменений | changelog
"""
# English shorthand (a question's Latin word): full English words | Russian words
_TABLE_EN = """
config, configs, conf: configuration | конфигурация, настройка
repo, repos: repository | репозиторий
docs, doc: documentation | документация
dir, dirs: directory | каталог
env: environment | окружение, среда
deps, dep: dependency | зависимость
auth: authentication | аутентификация
admin, admins, sysadmin: administrator | администратор
distro, distros: distribution | дистрибутив
app, apps: application | приложение
db: database | база данных
pkg, pkgs: package | пакет
lib, libs: library | библиотека
arg, args: argument | аргумент
param, params: parameter | параметр
info: information | информация, сведения
spec, specs: specification | спецификация
perms: permission | права, разрешение
prefs: preferences | настройки
msg, msgs: message | сообщение
err: error | ошибка
temp: temporary | временный
impl: implementation | реализация
util, utils: utility | утилита
src: source | исходный код
cmd: command | команда
num: number | номер, число
vm, vms: virtual machine | виртуальная машина
ui: user interface | интерфейс
gui: graphical interface | графический интерфейс
cli: command line | командная строка
regex, regexp, regexps: regular expression | регулярное выражение
i18n: internationalization | интернационализация
l10n: localization | локализация
dupe, dupes: duplicate | дубликат
"""


@dataclass(frozen=True)
class Jargon:
    """What a jargon word means in a manual's words: in its own language (`literary`) and in
    the other one (`translations`: English for Russian jargon, Russian for English shorthand)."""

    literary: tuple[str, ...]
    translations: tuple[str, ...]


def _split(text: str) -> tuple[str, ...]:
    return tuple(w.strip().lower() for w in text.split(",") if w.strip())


def _entries(table: str) -> Iterator[tuple[tuple[str, ...], Jargon]]:
    for line in table.strip().splitlines():
        words, _, meaning = line.partition(":")
        literary, _, translations = meaning.partition("|")
        yield _split(words), Jargon(_split(literary), _split(translations))


@functools.cache
def _table() -> dict[str, Jargon]:
    """Each jargon word by its spellings and, Russian ones, by their lemmas (pymorphy3 guesses an
    unknown word's dictionary form by analogy — конфиг → "конфига" —, the same guess for a
    question's form of it)."""
    table: dict[str, Jargon] = {}
    for words, entry in _entries(_TABLE):
        for word in words:
            for key in (word.replace("ё", "е"), lemma(word)):
                table.setdefault(key, entry)
    for words, entry in _entries(_TABLE_EN):
        for word in words:
            table.setdefault(word, entry)
    return table


def jargon(word: str) -> Jargon | None:
    """The meaning of a question's word if it is jargon (any form of a Russian one), else None."""
    form = word.lower().replace("ё", "е")
    table = _table()
    found = table.get(form)
    if found is None and has_lemma(form):
        found = table.get(lemma(form))
    return found


@dataclass(frozen=True)
class Alternatives:
    """A jargon word of the question as one full-text term: the word or its equivalents."""

    query: str  # tsquery text: the alternatives OR-ed (a phrase's lexemes AND-ed)
    share: float  # of the chunks holding any of them (at most: their shares summed)
    lexemes: int  # in `query`: ts_rank divides an OR query's rank by their number
    replaces: str  # the word's own lexeme (or lemma), which the term replaces


def question_jargon(words: list[str], cyrillic: bool) -> list[tuple[str, Jargon]]:
    """The question's jargon words, Cyrillic ones or Latin ones, each once, with their
    meanings."""
    found: dict[str, tuple[str, Jargon]] = {}
    for word in words:
        if has_lemma(word) != cyrillic or not (cyrillic or word.isalnum()):
            continue
        key = lemma(word) if cyrillic else word.lower()
        meaning = None if key in found else jargon(word)
        if meaning is not None and meaning.literary:
            found[key] = (word, meaning)
    return list(found.values())


def _group(own: str, alternatives: list[list[str]], share: Callable[[str], float]) -> Alternatives:
    """`own` or any of `alternatives` (each a phrase's lexemes), as one OR-ed term."""
    phrases = [[own]] + [a for a in alternatives if a and a != [own]]
    queries = list(
        dict.fromkeys(
            quoted(p[0]) if len(p) == 1 else "(" + " & ".join(quoted(x) for x in p) + ")"
            for p in phrases
        )
    )
    total = min(1.0, sum(min(share(x) for x in p) for p in phrases))
    lexemes = len({x for p in phrases for x in p})
    return Alternatives(" | ".join(queries), total, lexemes, own)


async def stem_alternatives(
    conn: AsyncConnection, jargon_words: list[tuple[str, Jargon]], config: str, stats: TermStats
) -> list[Alternatives]:
    """Each jargon word's stem in `config` (its language's; of a hyphenated word, the whole
    word's) OR-ed with its literary equivalents' stems."""
    if not jargon_words:
        return []
    texts = [w for w, _ in jargon_words] + [r for _, j in jargon_words for r in j.literary]
    sources = [-1 - i for i in range(len(jargon_words))] + [
        i for i, (_, j) in enumerate(jargon_words) for _ in j.literary
    ]
    params = {"cfg": config, "texts": texts, "words": sources}
    own: dict[int, list[str]] = {}
    alternatives: dict[int, list[list[str]]] = {}
    for source, lexemes in await (await conn.execute(TEXT_LEXEMES, params)).fetchall():
        if source < 0:
            own[-1 - source] = lexemes
        else:
            alternatives.setdefault(source, []).append(lexemes)
    return [
        _group(max(own[i], key=len), alternatives.get(i, []), stats.share)
        for i in range(len(jargon_words))
        if own.get(i)
    ]


def lemma_alternatives(
    jargon_words: list[tuple[str, Jargon]], stats: TermStats
) -> dict[str, Alternatives]:
    """Each Russian jargon word's lemma OR-ed with its literary equivalents' lemmas, by that
    lemma."""
    return {
        lemma(word): _group(lemma(word), [query_lemmas(r) for r in meaning.literary], stats.share)
        for word, meaning in jargon_words
    }
