//! What players may write to each other: names and chat lines, cleaned of anything a
//! terminal would act on, and how often a chat line may go (one rule for both sides).

/// A token bucket's rule: `burst` at once, then `per_sec` more each second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub per_sec: f64,
    pub burst: f64,
}

impl Rate {
    /// What a bucket holding `tokens` holds `secs` later: refilled, never above `burst`.
    pub fn refill(self, tokens: f64, secs: f64) -> f64 {
        (tokens + secs * self.per_sec).min(self.burst)
    }
}

/// Chat lines one client may send: a burst of 3, then 1 a second. The server drops a
/// line beyond it; the client holds to it too, so a line is never dropped silently.
pub const CHAT_RATE: Rate = Rate {
    per_sec: 1.0,
    burst: 3.0,
};

/// Longest player name, in characters, after sanitising.
pub const MAX_NAME_CHARS: usize = 16;
/// Longest chat line, in characters, after cleaning.
pub const MAX_CHAT_CHARS: usize = 120;

/// Makes `raw` safe ([`crate::net::safe_text::safe`]: no control character, escape
/// sequence or bidirectional override) and bounds its length, so nobody can put
/// anything a terminal would act on into another player's terminal or stretch the
/// screen.
pub fn sanitize_text(raw: &str, max_chars: usize) -> String {
    let text: String = crate::net::safe_text::safe(raw)
        .chars()
        .take(max_chars)
        .collect();
    text.trim().to_owned()
}

pub fn sanitize_name(raw: &str) -> String {
    let name = sanitize_text(raw, MAX_NAME_CHARS);
    if name.is_empty() {
        "player".to_owned()
    } else {
        name
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// The client's chat budget and the server's chat limit both refill through this.
    #[test]
    fn a_bucket_refills_at_the_rate_up_to_the_burst() {
        assert_eq!(CHAT_RATE.refill(0.0, 1.0), 1.0);
        assert_eq!(CHAT_RATE.refill(0.5, 0.25), 0.75);
        assert_eq!(CHAT_RATE.refill(2.0, 60.0), CHAT_RATE.burst);
    }

    #[test]
    fn chat_loses_escape_sequences() {
        let evil = "hi \u{1b}[2J\u{1b}]0;pwned\u{7}\u{9b}31m\r\n there";
        let clean = sanitize_text(evil, MAX_CHAT_CHARS);
        assert!(!clean.chars().any(char::is_control), "{clean:?}");
        assert!(clean.starts_with("hi ") && clean.ends_with("there"));
    }

    #[test]
    fn names_lose_control_characters() {
        assert_eq!(sanitize_name("\u{1b}[31mred\u{7}"), "red");
        assert_eq!(sanitize_name("   "), "player");
        assert_eq!(
            sanitize_name(&"x".repeat(50)).chars().count(),
            MAX_NAME_CHARS
        );
    }
}
