//! The one way the screens cut what does not fit: as much as fits, then `…`, so a cut
//! never reads as whole (`rate limite`, `? hel`). Widths are in terminal columns, one a
//! character: every glyph the screens draw is one column wide.

use ratatui::text::{Line, Span};

/// The mark of a cut.
pub(crate) const MARK: &str = "…";

/// `text` whole if it fits in `width` columns, else its first `width - 1` characters and
/// `…` (nothing when `width` is 0).
pub(crate) fn ellipsize(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    if width > 0 {
        cut.push_str(MARK);
    }
    cut
}

/// `line` whole if it fits in `width` columns, else cut as [`ellipsize`] cuts text: the
/// spans that fit, keeping their styles, then `…` in the style of the span it cut into.
/// Trailing blanks are not text: a line cut only in its blanks is trimmed, not marked.
pub(crate) fn ellipsize_line(line: Line<'static>, width: usize) -> Line<'static> {
    let total: usize = line.spans.iter().map(|s| s.content.chars().count()).sum();
    if total <= width {
        return line;
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let kept = text.trim_end().chars().count();
    let room = if kept <= width {
        kept
    } else {
        width.saturating_sub(1)
    };
    let mut line = line;
    let spans = std::mem::take(&mut line.spans);
    let mut out = line;
    let mut left = room;
    let mut last_style = out.style;
    for span in spans {
        if left == 0 {
            break;
        }
        let n = span.content.chars().count();
        last_style = span.style;
        if n <= left {
            left -= n;
            out.spans.push(span);
        } else {
            let part: String = span.content.chars().take(left).collect();
            out.spans.push(Span::styled(part, span.style));
            left = 0;
        }
    }
    if kept > width && width > 0 {
        out.spans.push(Span::styled(MARK, last_style));
    }
    out
}

/// The spans of `line` as plain text.
#[cfg(test)]
pub(crate) fn plain(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Style};

    use super::*;

    #[test]
    fn text_is_whole_or_cut_with_a_mark_in_its_width() {
        assert_eq!(ellipsize("rate limited", 12), "rate limited");
        assert_eq!(ellipsize("rate limited", 11), "rate limit…");
        assert_eq!(ellipsize("ab", 1), "…");
        assert_eq!(ellipsize("ab", 0), "");
        assert_eq!(ellipsize("né…x", 3), "né…");
    }

    #[test]
    fn a_line_keeps_its_styles_and_is_marked_where_cut() {
        let red = Style::new().fg(Color::Red);
        let line = Line::from(vec![
            Span::raw("snaps 20/s  "),
            Span::styled("rate limited", red),
        ]);
        let cut = ellipsize_line(line.clone(), 16);
        assert_eq!(plain(&cut), "snaps 20/s  rat…");
        assert_eq!(cut.spans.last().unwrap().style, red);
        assert_eq!(cut.spans.len(), 3);
        assert_eq!(
            plain(&ellipsize_line(line.clone(), 24)),
            "snaps 20/s  rate limited"
        );
        // Blanks past the text are no cut.
        let padded = Line::from(vec![Span::raw("max 1.00 cells  ")]);
        assert_eq!(plain(&ellipsize_line(padded, 14)), "max 1.00 cells");
        assert_eq!(plain(&ellipsize_line(line, 0)), "");
    }
}
