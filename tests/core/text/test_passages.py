"""Documents split into passages of roughly 40-120 words with exact offsets (core/text/passages)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_agent.core.text.passages import MAX_WORDS, MIN_WORDS, Span, split_passages


def _words(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def _texts(text: str, spans: list[Span]) -> list[str]:
    return [text[s.start:s.end] for s in spans]


def test_short_sections_merge_and_headings_start_passages_after_min_words() -> None:
    text = ("# Club rules\n\nThe AGM is in March.\n\n## Fees\nMembers pay 20 pounds.\n\n"
            f"## Long section\n{_words(60)}.\n\n## Last\n{_words(10, 'z')}.")
    parts = _texts(text, split_passages(text, markdown=True))
    # The first sections are short: they stay together with the long one (<= 120 words).
    assert parts[0].startswith("# Club rules") and parts[0].endswith("w59.")
    assert parts[1] == f"## Last\n{_words(10, 'z')}."  # 60+ words before it: a new passage
    assert len(parts) == 2


def test_plain_text_has_no_headings() -> None:
    text = f"# not a heading\n\n{_words(50)}\n\n# again\n\n{_words(30, 'x')}"
    assert len(split_passages(text)) == 1  # 2 + 50 + 2 + 30 words fit in one passage
    assert len(split_passages(text, markdown=True)) == 2


def test_a_long_block_is_cut_at_sentences_into_near_equal_parts() -> None:
    sentences = [f"Sentence {i} " + _words(9, f"s{i}x") + "." for i in range(40)]  # 11 words
    text = " ".join(sentences)  # 440 words, one paragraph (a PDF page)
    spans = split_passages(text)
    parts = _texts(text, spans)
    assert len(parts) == 4
    assert all(p.endswith(".") and p.startswith("Sentence") for p in parts)
    assert all(MIN_WORDS <= len(p.split()) <= MAX_WORDS for p in parts)


def test_a_sentence_longer_than_max_is_cut_between_words() -> None:
    text = _words(500)
    parts = _texts(text, split_passages(text))
    assert [len(p.split()) for p in parts] == [100] * 5
    assert " ".join(parts) == text


def test_pages_are_split_on_their_own_and_numbered() -> None:
    page_1, page_2 = "Page one text.", "Fault codes\nE2 Low water pressure"
    text = page_1 + "\n\n" + page_2
    pages = [(0, len(page_1)), (len(page_1) + 2, len(text))]
    spans = split_passages(text, pages)
    assert [(text[s.start:s.end], s.page) for s in spans] == [(page_1, 1), (page_2, 2)]


def test_blank_text() -> None:
    assert split_passages("") == [] and split_passages(" \n\n\t\n") == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .\n#\t!?é"), max_size=3000), st.booleans())
def test_spans_are_ordered_exact_and_cover_every_word(text: str, markdown: bool) -> None:
    spans = split_passages(text, markdown=markdown)
    last = 0
    for span in spans:
        assert last <= span.start < span.end <= len(text)
        piece = text[span.start:span.end]
        assert piece == piece.strip() and piece
        assert len(piece.split()) <= MAX_WORDS
        last = span.end
    covered = " ".join(_texts(text, spans)).split()
    assert covered == text.split()
