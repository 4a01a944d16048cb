"""SARIF rules: each rule's descriptions and help, taken from the check's page
(docs/checks/<check>.md) as sentences of running text, or pointing to clang's
and clang-tidy's documentation for their diagnostics."""

import os
import re
import urllib.parse

from .common import docs_checks_dir


def markdown_sections(text):
    """{'': intro, 'why': ..., 'fix-it': ...} of a check page (## headings)."""
    sections, name, lines = {}, "", []
    for line in text.split("\n"):
        if line.startswith("# "):
            continue
        if line.startswith("## "):
            sections[name] = "\n".join(lines).strip()
            name, lines = line[3:].strip().lower(), []
        else:
            lines.append(line)
    sections[name] = "\n".join(lines).strip()
    return sections


def plain_text(markdown):
    """Markdown as readable plain text: no code fences, backticks or link targets."""
    out = []
    for line in markdown.split("\n"):
        if line.startswith("```"):
            continue
        line = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line)
        out.append(line.replace("`", ""))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


LIST_ITEM_RE = re.compile(r"([-*+]|\d+[.)])\s")
ABBREVIATION_RE = re.compile(r"(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx)$", re.I)


def prose_paragraphs(markdown):
    """The paragraphs of running text of a page's section, each on one line and
    still in markdown: headings, tables, code blocks, lists (with their
    indented continuation lines), quotes and HTML are left out."""
    paras, cur, fence, skipping = [], [], False, False
    for line in markdown.split("\n") + [""]:
        s = line.strip()
        if s.startswith(("```", "~~~")):
            fence = not fence
        elif fence:
            continue
        elif s and not s.startswith(("#", "|", ">", "<")) and not LIST_ITEM_RE.match(s) \
                and not (line[:1] in (" ", "\t") and (skipping or not cur)):
            skipping = False
            cur.append(s)
            continue
        elif s:
            skipping = True
        if cur:
            paras.append(" ".join(cur))
            cur = []
    return paras


def sentences(paragraph):
    """A paragraph (markdown, one line) cut into its sentences: after '.', '!'
    or '?' followed by a space, outside `code` and not after e.g., i.e., etc."""
    out, start, code = [], 0, False
    for i, ch in enumerate(paragraph):
        if ch == "`":
            code = not code
        elif ch in ".!?" and not code and paragraph[i + 1:i + 2] in (" ", "") \
                and not ABBREVIATION_RE.search(paragraph[start:i]):
            out.append(paragraph[start:i + 1].strip())
            start = i + 1
    if paragraph[start:].strip():
        out.append(paragraph[start:].strip())
    return out


def inline_plain(markdown):
    """One line of markdown as plain text: code spans keep their text, links
    their label, emphasis markers go."""
    parts = re.split(r"(`[^`]*`)", markdown)
    for i, p in enumerate(parts):
        if i % 2:
            parts[i] = p[1:-1]
        else:
            p = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", p)
            p = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", p)
            parts[i] = re.sub(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])", r"\1", p)
    return " ".join("".join(parts).split())


def as_sentence(text):
    """text ending as a sentence does: a closing ':' (before a list, a table or
    code) becomes '.'."""
    text = text.rstrip()
    if text.endswith(":"):
        text = text[:-1].rstrip()
    return with_period(text)


def first_sentence(markdown):
    """The first sentence of running text of a section, as plain text; None
    when it has none."""
    paras = prose_paragraphs(markdown)
    return as_sentence(inline_plain(sentences(paras[0])[0])) if paras else None


def short_paragraph(intro, why, limit=1000):
    """A rule's full description: the first paragraph of running text of the
    page's introduction, then the sentences of the first of "Why" that fit in
    limit characters (up to one that introduces a list, a table or code)."""
    paras = prose_paragraphs(intro)
    text = as_sentence(inline_plain(paras[0])) if paras else ""
    why_paras = prose_paragraphs(why)
    for s in sentences(why_paras[0]) if why_paras else []:
        if s.endswith(":"):
            break  # it introduces a list, a table or code, which are left out
        s = with_period(inline_plain(s))
        if text and len(text) + 1 + len(s) > limit:
            break
        text = (text + " " + s).strip()
    return text


def with_period(text):
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def check_page(check):
    d = docs_checks_dir()
    if not d:
        return None
    try:
        with open(os.path.join(d, check + ".md"), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def camel_name(rule_id):
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[-_.]", rule_id) if p)
CLANG_TIDY_DOCS = "https://clang.llvm.org/extra/clang-tidy/checks/"
CLANG_DIAGNOSTICS_DOCS = "https://clang.llvm.org/docs/DiagnosticsReference.html"


def sarif_rule(rule_id, level, docs_url):
    rule = {"id": rule_id, "name": camel_name(rule_id),
            "defaultConfiguration": {"level": level},
            "properties": {"problem.severity": "error" if level == "error" else "warning"}}
    page = check_page(rule_id) if rule_id.startswith("torch-") else None
    if page:
        s = markdown_sections(page)
        what = s.get("", "")
        why = s.get("why", "")
        fix = s.get("fix-it") or s.get("fix-its") or ""
        parts = [("", what), ("Why", why), ("Fix", fix)]
        md = "\n\n".join(("## %s\n\n%s" % (h, b) if h else b) for h, b in parts if b)
        if docs_url:
            # Relative links of the page point into the docs folder.
            md = re.sub(r"\]\((?![a-z]+:|#)([^)]*)\)",
                        lambda m: "](%s)" % urllib.parse.urljoin(docs_url.rstrip("/") + "/", m.group(1)), md)
        else:
            md = re.sub(r"\[([^\]]*)\]\((?![a-z]+:)[^)]*\)", r"\1", md)
        txt = "\n\n".join(("%s:\n%s" % (h, plain_text(b)) if h else plain_text(b))
                          for h, b in parts if b)
        # Titles are sentences of running text: a page that opens with a
        # sentence introducing a table or code gives that sentence, never the
        # table or the code.
        short = first_sentence(what) or "The torch-tidy check %s." % rule_id
        rule["shortDescription"] = {"text": short}
        rule["fullDescription"] = {"text": short_paragraph(what, why) or short}
        rule["help"] = {"text": txt, "markdown": md}
        if docs_url:
            rule["helpUri"] = urllib.parse.urljoin(docs_url.rstrip("/") + "/", rule_id + ".md")
        rule["properties"].update({"tags": ["libtorch", "pytorch", "correctness"], "precision": "high"})
    elif rule_id.startswith("torch-"):
        # No page found (a copy of run-torch-tidy without torch-tidy's docs):
        # still a rule code scanning accepts, pointing to where the page is.
        page_name = "docs/checks/%s.md" % rule_id
        rule["shortDescription"] = {"text": "The torch-tidy check %s." % rule_id}
        rule["fullDescription"] = {"text": "The torch-tidy check %s; its documentation is %s in "
                                           "torch-tidy's source and share/doc/torch-tidy/checks/%s.md "
                                           "where torch-tidy is installed." % (rule_id, page_name, rule_id)}
        rule["help"] = {"text": "See %s in torch-tidy's documentation." % page_name,
                        "markdown": "See `%s` in torch-tidy's documentation." % page_name}
        if docs_url:
            rule["helpUri"] = urllib.parse.urljoin(docs_url.rstrip("/") + "/", rule_id + ".md")
        rule["properties"].update({"tags": ["libtorch", "pytorch", "correctness"], "precision": "high"})
    elif rule_id.startswith("clang-diagnostic-"):
        flag = rule_id[len("clang-diagnostic-"):]
        what = ("A compiler error reported by clang." if flag == "error"
                else "The clang compiler warning -W%s." % flag)
        rule["shortDescription"] = {"text": what}
        rule["fullDescription"] = {"text": what + " torch-tidy reports the compiler's diagnostics "
                                           "for the code it analyses."}
        rule["help"] = {"text": "See clang's diagnostics reference: %s" % CLANG_DIAGNOSTICS_DOCS,
                        "markdown": "See [clang's diagnostics reference](%s)." % CLANG_DIAGNOSTICS_DOCS}
        rule["helpUri"] = CLANG_DIAGNOSTICS_DOCS
        rule["properties"].update({"tags": ["compiler"], "precision": "very-high"})
    else:
        module, _, name = rule_id.partition("-")
        uri = CLANG_TIDY_DOCS + "%s/%s.html" % (module, name or module)
        rule["shortDescription"] = {"text": "The clang-tidy check %s." % rule_id}
        rule["fullDescription"] = {"text": "The clang-tidy check %s; its documentation is at %s."
                                           % (rule_id, uri)}
        rule["help"] = {"text": "See %s" % uri, "markdown": "See [%s](%s)." % (rule_id, uri)}
        rule["helpUri"] = uri
        rule["properties"].update({"tags": ["clang-tidy"], "precision": "medium"})
    return rule
