//! A lag compensation verdict for every rail shot, for misses too: how far back the
//! shooter's view was against the server's rewind bound, where the target was tested
//! and where it really was, where the target's own client drew itself at that moment,
//! and the verdict (hit; miss; miss because past the bound). The lab knows all of it at
//! once: the server's shot, and every client's prediction on the one clock. Shown as a
//! panel under the lanes while there are any.

use std::collections::VecDeque;

use ratatui::text::Line;

use super::Lab;
use crate::net::protocol::RailShot;
use crate::ui::lab::Panel;

/// Verdicts kept: the newest shots.
const KEPT: usize = 4;

/// The newest shots' verdict lines, oldest first.
#[derive(Default)]
pub(crate) struct Verdicts {
    lines: VecDeque<String>,
}

impl Lab {
    /// Notes the verdict of a rail shot the server just sent: in words, with where the
    /// target's own client (if it is one of the lab's) predicted itself right now.
    pub(crate) fn note_verdict(&mut self, shot: &RailShot) {
        let target = shot.hit.or(shot.nearest.map(|(id, _, _)| id));
        let sessions = self
            .clients
            .iter()
            .chain(&self.walkers)
            .map(|c| c.driver.session());
        let mut saw = None;
        let mut namer = None;
        for s in sessions {
            if Some(s.player_id()) == target {
                saw = s.predicted();
            }
            if namer.is_none() || s.player_id() == shot.shooter {
                namer = Some(s);
            }
        }
        let Some(namer) = namer else {
            return;
        };
        let line = namer.rail_verdict(shot, saw);
        let v = &mut self.verdicts;
        if v.lines.len() == KEPT {
            v.lines.pop_front();
        }
        v.lines.push_back(line);
    }

    /// The newest rail shots' verdicts, oldest first, as the lab's panel shows them.
    #[doc(hidden)]
    pub fn rail_verdicts(&self) -> Vec<String> {
        self.verdicts.lines.iter().cloned().collect()
    }
}

/// The panel, newest shot first; None before any shot. It takes the columns the other
/// panels leave, so each verdict is broken into short lines at its `·`, `,` and `:` (the
/// verdict itself on the first): `rail c1→B · HIT`, then `  rewind 150 ms (bound 200)`.
pub(crate) fn panel(lab: &Lab) -> Option<Panel> {
    let lines = &lab.verdicts.lines;
    (!lines.is_empty()).then(|| Panel {
        title: "rail shots: lag compensation".into(),
        lines: lines.iter().rev().flat_map(|l| broken(l)).collect(),
        width: 0,
        ..Panel::default()
    })
}

/// One verdict line as short lines: what shot at whom and the verdict, then each
/// figure indented.
fn broken(line: &str) -> Vec<Line<'static>> {
    let parts: Vec<&str> = line.split(" · ").collect();
    let (first, rest) = parts
        .split_first()
        .map_or((line, &[][..]), |(f, r)| (*f, r));
    let (shot, rewind) = first.split_once(": ").unwrap_or((first, ""));
    let (figures, verdict) = match rest.split_last() {
        Some((v, figures)) => (figures, *v),
        None => (&[][..], ""),
    };
    let mut out = vec![Line::raw(format!("{shot} · {verdict}"))];
    let figures = std::iter::once(rewind)
        .chain(figures.iter().copied())
        .flat_map(|f| f.split(", "))
        .flat_map(|f| f.split(": "))
        .filter(|f| !f.is_empty());
    out.extend(figures.map(|f| Line::raw(format!("  {f}"))));
    out
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::lab::tests::config;
    use crate::net::protocol::RailVerdict;

    /// Bots fight two lab clients: every rail shot the server sends gets its line, with
    /// its verdict, and where its target is one of the lab's clients, where that client
    /// drew itself; the lab's panel lists them, newest first.
    #[test]
    fn every_rail_shot_gets_a_verdict_line_and_the_panel_shows_it() {
        let t0 = Instant::now();
        let mut lab = Lab::new(&config(2, 3, 11), t0).unwrap();
        let clients: Vec<_> = lab
            .clients
            .iter()
            .map(|c| c.driver.session().player_id())
            .collect();
        let (mut shots, mut seen_by_target) = (0, 0);
        let mut newest: Option<RailShot> = None;
        let mut t = t0;
        while t < t0 + Duration::from_secs(60) {
            t += Duration::from_millis(5);
            lab.run_until(t);
            let Some(rail) = lab.rails.last().map(|r| r.shot) else {
                continue;
            };
            if newest == Some(rail) {
                continue;
            }
            newest = Some(rail);
            shots += 1;
            let line = lab.rail_verdicts().pop().expect("a line for the shot");
            let word = match rail.verdict {
                RailVerdict::Hit => "· HIT",
                RailVerdict::Miss => "· miss",
                RailVerdict::PastBound => "· miss: past the bound",
            };
            assert!(line.ends_with(word), "{line}: {rail:?}");
            let target = rail.hit.or(rail.nearest.map(|(id, _, _)| id));
            if target.is_some_and(|id| clients.contains(&id)) {
                assert!(line.contains("saw itself at"), "{line}");
                seen_by_target += 1;
            }
            let panel = panel(&lab).expect("the panel shows");
            let (shot, _) = line.split_once(": ").expect("a shot, then its figures");
            assert_eq!(panel.lines[0].to_string(), format!("{shot} {word}"));
            let shown: String = panel.lines[1..]
                .iter()
                .take_while(|l| l.to_string().starts_with("  "))
                .map(|l| l.to_string().trim().to_owned())
                .collect::<Vec<_>>()
                .join(" ");
            let figures: String = line[shot.len() + 2..line.len() - word.len()]
                .replace(" · ", " ")
                .replace(", ", " ")
                .replace(": ", " ");
            assert_eq!(shown, figures.trim(), "{line}");
        }
        assert!(shots >= 3, "{shots} rail shots");
        assert!(seen_by_target >= 1, "{seen_by_target} at the lab's clients");
    }
}
