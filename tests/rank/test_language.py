"""Each document's language, and the intent's: where a project keeps its pages'
translations beside them, the ones in the intent's language come first; a project in one
language is never touched; a text whose language is not clear is in none."""

from __future__ import annotations

import json

import pytest

from oriongraph_cli.index.parse import parse_document
from oriongraph_cli.language import detect, name, normalise

EN = ("Catch unhandled promise rejections. Most of the code of a modern Node.js application runs within "
      "promises, and unless a developer remembered to add a catch clause, the errors thrown there are not "
      "handled by the uncaughtException handler and disappear. Subscribe to the unhandledRejection event "
      "so that any promise error that is not handled locally will get its treatment.")
FR = ("Capturez les rejets de promesses non gérés. La plupart du code d'une application Node.js moderne "
      "s'exécute dans des promesses, et à moins qu'un développeur n'ait pensé à ajouter une clause catch, "
      "les erreurs levées à ces endroits ne sont pas gérées par le gestionnaire uncaughtException et "
      "disparaissent. Abonnez-vous à l'événement unhandledRejection pour que toute erreur de promesse qui "
      "n'est pas gérée localement soit traitée.")
PL = ("Przechwytuj nieobsłużone odrzucenia obietnic. Większość kodu nowoczesnej aplikacji Node.js jest "
      "wykonywana w obietnicach i jeśli programista nie pamiętał o dodaniu klauzuli catch, błędy zgłoszone "
      "w tych miejscach nie są obsługiwane przez program obsługi uncaughtException i znikają. Dlatego "
      "zasubskrybuj zdarzenie unhandledRejection, aby każdy błąd, który nie jest obsłużony lokalnie, "
      "został przechwycony przez mechanizm awaryjny.")
DE = ("Fange nicht behandelte Ablehnungen von Promises ab. Der meiste Code einer modernen Anwendung läuft "
      "in Promises, und wenn ein Entwickler nicht daran gedacht hat, eine catch Klausel hinzuzufügen, werden "
      "die dort geworfenen Fehler nicht von dem Handler behandelt und verschwinden. Es ist daher wichtig, "
      "auf das Ereignis zu hören, damit jeder Fehler auch behandelt wird.")


@pytest.mark.parametrize("text, lang", [
    (EN, "en"), (FR, "fr"), (PL, "pl"), (DE, "de"),
    ("未处理的 Promise 拒绝会导致错误消失。为了避免这种情况，请订阅 unhandledRejection 事件，这样任何未在本地处理的错误都会得到处理。", "zh"),
    ("未処理のプロミスの拒否をキャッチします。ほとんどのコードはプロミスの中で実行されます。", "ja"),
    ("처리되지 않은 프라미스 거부를 잡으세요. 대부분의 코드는 프라미스 안에서 실행됩니다.", "ko"),
    ("Перехватывайте необработанные отклонения промисов. Большая часть кода выполняется внутри промисов.", "ru"),
])
def test_the_language_of_prose(text, lang):
    assert detect(text) == lang


@pytest.mark.parametrize("text", [
    "",
    "x = 1\ny = 2\nprint(x + y)",  # no prose
    "| BU | CIDR |\n|---|---|\n" + "| bu | 10.0.0.0/16 |\n" * 40,  # a table repeating one short word
    "Retry backoff jitter.",  # too few words
    "`npm ci` `npm install` `yarn` https://example.org/la/de/en",  # code and links only
])
def test_what_is_in_no_language(text):
    assert detect(text) is None


@pytest.mark.parametrize("intent, lang", [
    ("my Express app crashes on an unhandled promise rejection, should the process exit?", "en"),
    ("Comment gérer les erreurs dans Express avec des promesses", "fr"),
    ("如何处理未处理的错误", "zh"),
    ("retry backoff", None),  # no function word: the project's language is taken
    ("folder layout per business feature", None),  # "per" is English too
    ("main-actor-isolated static func == cannot satisfy non-isolated requirement", None),
])
def test_the_language_of_an_intent(intent, lang):
    assert detect(intent, intent=True) == lang


def test_the_intent_s_language_is_one_the_documents_are_in():
    from oriongraph_cli.rank.generators.language import intent_language

    langs = {"a.md": "en", "b.md": "en", "a.fr.md": "fr"}
    assert intent_language("Comment gérer les erreurs dans Express avec des promesses", langs) == "fr"
    assert intent_language("wie konfiguriere ich den Server und die Datenbank", langs) == "en"  # no German page: most pages'
    assert intent_language("retry backoff", langs) == "en"
    assert intent_language("retry backoff", {"a.md": "en", "a.fr.md": "fr"}) is None  # a tie: none


def test_language_codes_and_names():
    assert normalise("pt-BR") == "pt" and normalise("en_US") == "en" and normalise("FR") == "fr"
    assert normalise("français") is None and normalise(3) is None and normalise(None) is None
    assert normalise("Japanese") == "ja" and normalise(" english ") == "en"
    assert normalise("js") == "js" and normalise("js", known=True) is None and normalise("pt-BR", known=True) == "pt"
    assert name("fr") == "French" and name("xx") == "xx"


def test_a_document_s_language_from_its_front_matter_else_its_prose():
    def doc(text):
        return parse_document("02_knowledge/x.md", text.encode(), text, mtime=0.0)

    d, warnings = doc(f"# X\n\n{FR}\n")
    assert d.language == "fr" and not warnings
    d, _ = doc(f"---\nlang: de-CH\n---\n# X\n\n{FR}\n")
    assert d.language == "de"  # the front matter wins
    d, warnings = doc(f"---\nlang: [en]\n---\n# X\n\n{FR}\n")
    assert d.language == "fr" and [w.kind for w in warnings] == ["lang"]
    d, warnings = doc(f"---\nlanguage: French\n---\n# X\n\n{EN}\n")
    assert d.language == "fr" and not warnings
    for other in ("javascript", "js"):  # a site's own field: no language, no warning
        d, warnings = doc(f"---\nlanguage: {other}\n---\n# X\n\n{EN}\n")
        assert d.language == "en" and not warnings
    # code is not prose: an English page of French code comments is English
    d, _ = doc(f"# X\n\n{EN}\n\n```js\n// {FR}\n```\n")
    assert d.language == "en"


@pytest.mark.parametrize("rel, lang", [
    ("02_knowledge/errors/promises.fr.md", "fr"),
    ("02_knowledge/errors/promises.pl.md", "pl"),  # read so; a page's parse asks the text too (below)
    ("02_knowledge/errors/promises.pt-BR.md", "pt"),
    ("02_knowledge/errors/promises.korean.md", "ko"),
    ("02_knowledge/errors/promises.brazilian-portuguese.md", "pt"),
    ("02_knowledge/docs/i18n/ja/intro.md", "ja"),
    ("02_knowledge/site/locales/zh_CN/intro.rst", "zh"),
    ("02_knowledge/errors/promises.md", None),
    ("02_knowledge/it/laptops.md", None),  # a folder named like a code is a topic
    ("02_knowledge/uk/office.md", None),
    ("02_knowledge/release/v1.2.md", None),
    ("02_knowledge/tools/setup.py.md", None),
    ("02_knowledge/errors/promises.old.md", None),
    ("02_knowledge/i18n/README.md", None),
])
def test_the_language_a_path_states(rel, lang):
    from oriongraph_cli.language import of_path

    assert of_path(rel) == lang


def test_a_translation_left_untranslated_is_its_path_s_language():
    """A site's French page still in English (its translation not yet written) is the
    French page: for an English intent a copy of the English one, demoted with the other
    translations. The front matter still wins over the path."""
    d, warnings = parse_document("02_knowledge/errors/promises.french.md", EN.encode(), f"# X\n\n{EN}\n", mtime=0.0)
    assert d.language == "fr" and not warnings
    d, _ = parse_document("02_knowledge/errors/promises.french.md", EN.encode(), f"---\nlang: en\n---\n# X\n\n{EN}\n", mtime=0.0)
    assert d.language == "en"
    d, _ = parse_document("02_knowledge/errors/promises.md", EN.encode(), f"# X\n\n{FR}\n", mtime=0.0)
    assert d.language == "fr"  # no language in the path: the text's
    # a suffix that is also a file extension states nothing, the text decides: a Perl
    # script's page in English is English, a Polish page is Polish, a page of code is in
    # none; a language's name leaves no doubt
    for rel, text, lang in (("02_knowledge/scripts/backup.pl.md", EN, "en"), ("02_knowledge/errors/promises.pl.md", PL, "pl"),
                            ("02_knowledge/scripts/backup.pl.md", "x = 1", None), ("02_knowledge/errors/promises.polish.md", EN, "pl"),
                            ("02_knowledge/kernel/driver.ko.md", EN, "en"), ("02_knowledge/errors/promises.fr.md", EN, "fr")):
        d, _ = parse_document(rel, text.encode(), f"# X\n\n{text}\n", mtime=0.0)
        assert d.language == lang, rel


def _project(root, pages: dict[str, str]):
    for rel, text in pages.items():
        p = root / "02_knowledge" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _compile(root, intent: str) -> dict:
    from typer.testing import CliRunner

    from oriongraph_cli.cli import app

    r = CliRunner().invoke(app, ["compile", intent, "--root", str(root), "--json", "--explain", "--no-usage-log", "--budget", "600"])
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def _picks(data: dict) -> list[tuple[str, list[str]]]:
    return [(p["path"], p["reasons"]) for p in data["explanation"]["rationale"]]


def test_translations_beside_a_page_come_after_it(tmp_path, fake_embedder):
    """An English intent gets the English page first and its French copy demoted with the
    reason; a French intent the other way round."""
    from typer.testing import CliRunner

    from oriongraph_cli.cli import app

    _project(tmp_path, {
        "errors/promises.md": f"# Unhandled promise rejections\n\n{EN}\n",
        "errors/promises.french.md": f"# Rejets de promesses non gérés\n\n{FR}\n",
        "errors/promises.polish.md": f"# Nieobsłużone odrzucenia obietnic\n\n{PL}\n",
        "errors/promises.korean.md": f"# Unhandled promise rejections\n\nNot yet translated. {EN}\n",
    })
    assert CliRunner().invoke(app, ["index", "--root", str(tmp_path), "--quiet"]).exit_code == 0
    picks = _picks(_compile(tmp_path, "what should my app do about an unhandled promise rejection?"))
    assert picks[0][0] == "02_knowledge/errors/promises.md"
    reasons = dict(picks)
    # the Korean page not yet translated is a copy of the English one: demoted as Korean
    assert any("in Korean, the intent in English (demoted ×0.50)" in r for r in reasons["02_knowledge/errors/promises.korean.md"])
    assert all(any("the intent in English (demoted" in r for r in rs) for p, rs in picks[1:])
    picks = _picks(_compile(tmp_path, "que faire avec les rejets de promesses non gérés dans une application"))
    assert picks[0][0] == "02_knowledge/errors/promises.french.md"
    assert any("in English, the intent in French" in r for r in dict(picks)["02_knowledge/errors/promises.md"])
    # without the adjustment (language_demote = 1) nothing says it
    (tmp_path / ".orion.toml").write_text("language_demote = 1.0\n")
    picks = _picks(_compile(tmp_path, "what should my app do about an unhandled promise rejection?"))
    assert not any("the intent in" in r for _p, rs in picks for r in rs)


def test_a_project_in_one_language_is_left_as_it_is(tmp_path, fake_embedder):
    from typer.testing import CliRunner

    from oriongraph_cli.cli import app

    _project(tmp_path, {"a.md": f"# A\n\n{EN}\n", "b.md": f"# B\n\nShut the process down gracefully. {EN}\n"})
    assert CliRunner().invoke(app, ["index", "--root", str(tmp_path), "--quiet"]).exit_code == 0
    picks = _picks(_compile(tmp_path, "Comment gérer les erreurs dans Express avec des promesses"))  # a French intent
    assert picks and not any("the intent in" in r for _p, rs in picks for r in rs)


def test_a_project_mostly_in_another_language_than_the_intent_s_is_read_as_it_is(tmp_path, fake_embedder):
    """A team asking in English of its German pages keeps them above its one English page:
    only a language no more common than the intent's is demoted."""
    from typer.testing import CliRunner

    from oriongraph_cli.cli import app

    _project(tmp_path, {"a.md": f"# A\n\n{DE}\n", "b.md": f"# B\n\nWiederholung. {DE}\n", "readme.md": f"# Readme\n\n{EN}\n"})
    assert CliRunner().invoke(app, ["index", "--root", str(tmp_path), "--quiet"]).exit_code == 0
    picks = _picks(_compile(tmp_path, "what should my app do about an unhandled promise rejection?"))
    assert picks and not any("the intent in" in r for _p, rs in picks for r in rs)
    picks = _picks(_compile(tmp_path, "wie soll die Anwendung mit dem Fehler umgehen, der nicht behandelt wird"))
    assert any("in English, the intent in German" in r for r in dict(picks)["02_knowledge/readme.md"])


def test_where_lang_keeps_the_pages_read_in_that_language(tmp_path, fake_embedder):
    """``--where lang=fr`` keeps the pages the index reads as French — from the front
    matter, the path or the text — compared as codes (``pt-BR`` is Portuguese), and the
    language asked for is not demoted for an intent in another."""
    from typer.testing import CliRunner

    from oriongraph_cli.cli import app

    _project(tmp_path, {
        "errors/promises.md": f"# Unhandled promise rejections\n\n{EN}\n",
        "errors/promises.french.md": f"# Rejets de promesses non gérés\n\n{FR}\n",  # from the path
        "errors/shutdown.md": f"---\nlang: fr\n---\n# Arrêt\n\n{FR}\n",  # from the front matter
        "errors/rejections.md": f"# Rejets\n\n{FR}\n",  # from the text
        "errors/promises.pt-BR.md": f"# Rejeições de promessas\n\nNot yet translated. {EN}\n",
    })
    assert CliRunner().invoke(app, ["index", "--root", str(tmp_path), "--quiet"]).exit_code == 0

    def where(value: str) -> dict:
        r = CliRunner().invoke(app, ["compile", "what should my app do about an unhandled promise rejection?", "--root", str(tmp_path),
                                     "--where", f"lang={value}", "--json", "--explain", "--no-usage-log", "--budget", "2000"])
        assert r.exit_code == 0, r.stderr
        return json.loads(r.stdout)

    data = where("fr")
    assert {d["path"] for d in data["documents"]} == {
        "02_knowledge/errors/promises.french.md", "02_knowledge/errors/shutdown.md", "02_knowledge/errors/rejections.md"}
    assert not any("the intent in" in r for _p, rs in _picks(data) for r in rs)
    assert {d["path"] for d in where("pt-BR")["documents"]} == {"02_knowledge/errors/promises.pt-BR.md"}
    assert {d["path"] for d in where("EN")["documents"]} == {"02_knowledge/errors/promises.md"}
