//! The terminal's A/B screen: both labs side by side, and the panel of the chosen
//! client's figures that differ so far.

use ratatui::text::Line;

use super::{Difference, Setting, differences};
use crate::lab::Lab;
use crate::lab::view::{self, Controls};
use crate::ui::lab::{LabView, LaneView, Pane, Panel};
use serde_json::Value as Json;

/// The terminal's picture of labs A and B: A's server view and chosen client's view on
/// the left, B's on the right, each titled with the setting's value there; each one's
/// lane for the chosen client; one clock; and a panel of the chosen client's figures
/// that differ so far.
pub(crate) fn view<'a>(a: &'a Lab, b: &'a Lab, setting: &Setting, c: &Controls) -> LabView<'a> {
    let n = c.selected;
    let label_a = format!("A: {}={}", setting.key, setting.shown(a, n));
    let label_b = format!("B: {}={}", setting.key, setting.shown(b, n));
    let mut va = view::build(a, c);
    let mut vb = view::build(b, c);
    let (sa, ca, la) = take(&mut va, n, "A", &label_a);
    let (sb, cb, lb) = take(&mut vb, n, "B", &label_b);
    // A's server, B's server, A's client, B's client: in two columns, A left, B right.
    va.panes = [Some(sa), Some(sb), ca, cb].into_iter().flatten().collect();
    va.lanes = [la, lb].into_iter().flatten().collect();
    va.columns = Some(2);
    va.clock = va.clock.replacen(
        "netarena lab",
        &format!("netarena lab A/B  left {label_a}  right {label_b}"),
        1,
    );
    // Lab A's own panels would show one side only: the differences take their place.
    va.panels = vec![differences_panel(a, b, n)];
    va
}

/// [`view`] without the servers' views: A's chosen client's view on the left, B's on
/// the right. A lesson's A/B step (`netarena learn`) draws this, so its panel keeps the
/// rows the servers' views would take, at 100x30 too.
pub(crate) fn clients_view<'a>(
    a: &'a Lab,
    b: &'a Lab,
    setting: &Setting,
    c: &Controls,
) -> LabView<'a> {
    let mut v = view(a, b, setting, c);
    if v.panes.len() == 4 {
        v.panes.drain(..2);
    }
    v
}

/// The server's pane, client `n`'s pane and its lane out of one lab's view, titled and
/// labelled with the side they show.
fn take<'a>(
    v: &mut LabView<'a>,
    n: usize,
    side: &str,
    label: &str,
) -> (Pane<'a>, Option<Pane<'a>>, Option<LaneView>) {
    let mut client = (n + 1 < v.panes.len()).then(|| v.panes.remove(n + 1));
    let mut server = v.panes.remove(0);
    server.title = format!("{label} · {}", server.title);
    if let Some(cl) = &mut client {
        cl.title = format!("{label} · {}", cl.title);
    }
    let lane = (n < v.lanes.len()).then(|| {
        let mut lane = v.lanes.remove(n);
        lane.label = format!("{side} {}", lane.label.replacen("client ", "c", 1));
        lane
    });
    (server, client, lane)
}

/// The width of the panel of figures that differ.
pub(crate) const DIFFERENCES_WIDTH: u16 = 58;

/// The chosen client's figures that differ between the labs so far, as the headless
/// report names them.
fn differences_panel(a: &Lab, b: &Lab, n: usize) -> Panel {
    let seconds = |lab: &Lab| lab.elapsed().as_secs_f64();
    let report = |lab: &Lab| {
        lab.clients.get(n).map(|c| {
            crate::client::shell::headless::report(
                c.driver.session(),
                c.totals(seconds(lab)),
                String::new(),
            )
        })
    };
    let mut lines = vec![Line::from(format!(
        "{:<24} {:>10} {:>10} {:>7}",
        "field", "A", "B", "B/A"
    ))];
    if let (Some(ra), Some(rb)) = (report(a), report(b)) {
        let mut diffs: Vec<Difference> = differences(&ra, &rb)
            .into_iter()
            .filter(|d| d.a.is_number() && d.b.is_number())
            .collect();
        // The largest differences first, as a factor either way; from nothing first of all.
        let size = |d: &Difference| d.ratio.map_or(f64::INFINITY, |r| r.ln().abs());
        diffs.sort_by(|x, y| size(y).total_cmp(&size(x)));
        for d in diffs {
            let num = |v: &Json| v.as_f64().map_or(String::new(), figure);
            lines.push(Line::from(format!(
                "{:<24} {:>10} {:>10} {:>7}",
                d.field,
                num(&d.a),
                num(&d.b),
                d.ratio.map_or(String::new(), |r| format!("{r:.2}"))
            )));
        }
    }
    if lines.len() == 1 {
        lines.push(Line::from("no figure differs yet"));
    }
    Panel {
        title: format!("A/B: client {} figures that differ", n + 1),
        lines,
        width: DIFFERENCES_WIDTH,
        ..Panel::default()
    }
}

/// A figure as the panel writes it: whole when whole, else to two places.
fn figure(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e12 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}
