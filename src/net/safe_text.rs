//! The one gate between a string from the network or a file and a terminal or a log.
//! Names, chat, `Bye` reasons, server and map names pass [`safe`] before they are
//! drawn, printed or logged, so nobody can put a control character or an escape
//! sequence into another person's terminal (changing its title, clearing it, leaving it
//! on the alternate screen) or forge a line of a log.
//!
//! Every control character goes: C0 (U+0000-U+001F), DEL (U+007F) and C1
//! (U+0080-U+009F); an escape sequence goes whole (CSI `ESC [` or U+009B to its final
//! byte, OSC `ESC ]` or U+009D and the string controls DCS, SOS, PM and APC to their
//! terminator, and any other `ESC` with the one character after it), so no stray
//! parameters are left to read as text. The bidirectional overrides and isolates
//! (U+202A-U+202E, U+2066-U+2069), which reorder what follows them on screen, go too.
//! A tab, a line feed and a carriage return become one space: a log line stays one line.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// The C1 forms of CSI, OSC, ST, DCS, SOS, PM and APC.
const C1_CSI: char = '\u{9b}';
const C1_OSC: char = '\u{9d}';
const C1_ST: char = '\u{9c}';
const C1_STRINGS: [char; 4] = ['\u{90}', '\u{98}', '\u{9e}', '\u{9f}'];

fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `raw` with every control character, escape sequence and bidirectional override
/// removed (a tab or a line break: one space). Borrowed when there was nothing to remove.
pub fn safe(raw: &str) -> Cow<'_, str> {
    if !raw.chars().any(unsafe_char) {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // A two-character sequence (ESC c, ESC 7, ...), or ESC at the end.
                _ => {}
            },
            C1_CSI => skip_csi(&mut chars),
            C1_OSC => skip_string(&mut chars),
            c if C1_STRINGS.contains(&c) => skip_string(&mut chars),
            '\t' | '\n' | '\r' => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c if unsafe_char(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Past a control sequence's parameter and intermediate bytes and its final byte.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) || unsafe_char(c) {
            return;
        }
    }
}

/// Past a string control's text and its terminator (BEL, ST or `ESC \`).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            BEL | C1_ST => return,
            ESC => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_goes() {
        let all = (0u32..=0x9f)
            .chain(0x202a..=0x202e)
            .chain(0x2066..=0x2069)
            .filter_map(char::from_u32);
        for c in all {
            let s = format!("a{c}b");
            let out = safe(&s);
            assert!(!out.chars().any(unsafe_char), "U+{:04X}: {out:?}", c as u32);
            if unsafe_char(c) && !matches!(c, '\t' | '\n' | '\r') {
                // Nothing of it is left, and what it stood between survives (a C1
                // string control swallows the rest: it has no terminator).
                assert!(out == "ab" || out == "a", "U+{:04X}: {out:?}", c as u32);
            }
        }
        assert_eq!(safe("line\r\nnext\tcol"), "line next col");
        assert!(matches!(safe("plain ✶ text"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_sequences_go_whole() {
        let cases = [
            // CSI: clear the screen, colour, cursor hidden, alternate screen on.
            ("x\u{1b}[2Jy", "xy"),
            ("x\u{1b}[1;31my", "xy"),
            ("x\u{1b}[?25ly", "xy"),
            ("x\u{1b}[?1049hy", "xy"),
            ("x\u{9b}?1049hy", "xy"),
            // OSC: a window title, by BEL, by ST, by the C1 forms.
            ("x\u{1b}]0;pwned\u{7}y", "xy"),
            ("x\u{1b}]2;pwned\u{1b}\\y", "xy"),
            ("x\u{9d}0;pwned\u{9c}y", "xy"),
            // DCS and APC, a two-character reset, an ESC at the very end.
            ("x\u{1b}Pq#0\u{1b}\\y", "xy"),
            ("x\u{1b}_payload\u{7}y", "xy"),
            ("x\u{1b}cy", "xy"),
            ("xy\u{1b}", "xy"),
            // A sequence cut short by another control stops there.
            ("x\u{1b}[12\u{7}y", "xy"),
        ];
        for (raw, want) in cases {
            assert_eq!(safe(raw), want, "{raw:?}");
        }
    }
}
