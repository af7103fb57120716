//! What became of each command the client made, worked out from what the client knows:
//! the input packets it made (each carries every unacknowledged command, so a command
//! rides in several) and what snapshots say the server got.
//!
//! Two things in a snapshot tell about our input packets. Its `ack_seq` plus `queued`
//! is the newest command seq the server had received, which is the last seq of exactly
//! one packet: that packet arrived. One snapshot in ten also carries the server's
//! count of our packets received and the highest packet number seen, so how many are
//! missing so far. When the packets not known to have arrived are exactly as many as
//! are missing, they were all lost; when none is missing, they all arrived; otherwise
//! some of them were lost and which cannot be told.
//!
//! When the loss is the client's own simulated link, the link says which packets it
//! dropped (a recording keeps each verdict): those are lost for certain, whatever the
//! counts, and the counts then only judge the rest (a real network's losses on top).
//!
//! A command whose first packet was lost but which the server acknowledged got there
//! in a later packet's copy: recovered by redundancy. One whose every packet was lost
//! never reached the server; so did one a correction's cause analysis found missing
//! (re-running our commands without it lands where the server has us). With the link's
//! verdicts, simulated loss reads exactly; a real network's loss is known only as far
//! as the snapshots tell (often: some of these, which cannot be told).

/// What became of one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Not acknowledged (yet), or not judged.
    Pending,
    /// Its first packet arrived, or nothing says otherwise.
    Delivered,
    /// Its first packet was lost; a later packet's copy reached the server.
    Recovered,
    /// Its first packet was among some of which a few were lost: which, the counts
    /// cannot tell.
    Unsure,
    /// Every packet that carried it was lost: the server never had it.
    Lost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    Unknown,
    Arrived,
    Lost,
    /// Among packets of which some, not all, were lost.
    Maybe,
    /// Dropped by the client's own simulated link: the link said so.
    Dropped,
}

#[derive(Clone, Copy, Debug)]
struct Packet {
    number: u32,
    first: u32,
    last: u32,
    known: Known,
}

/// The packets made and what the server said of them, in order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Fates {
    /// In the order made: numbers and last seqs both rise.
    packets: Vec<Packet>,
    /// How many packets were already taken for lost (or maybe lost).
    counted_missing: u32,
    /// The first packet not yet judged by the counts.
    unjudged: usize,
    acked: u32,
    /// Runs of commands found lost by re-simulation: first seq, count.
    lost_runs: Vec<(u32, u32)>,
}

impl Fates {
    /// Input packet `number` carried commands `first..=last`.
    pub(crate) fn sent(&mut self, number: u32, first: u32, last: u32) {
        self.packets.push(Packet {
            number,
            first,
            last,
            known: Known::Unknown,
        });
    }

    /// The client's simulated link dropped packet `number` as it was sent: lost for
    /// certain. A packet not made in this recording (a clip's first) is passed over.
    pub(crate) fn dropped(&mut self, number: u32) {
        let at = self.packets.partition_point(|p| p.number < number);
        if let Some(p) = self.packets.get_mut(at)
            && p.number == number
        {
            p.known = Known::Dropped;
        }
    }

    /// A snapshot: the server had applied up to `ack_seq` with `queued` more waiting,
    /// and (one snapshot in ten) had received `received` of our packets up to number
    /// `high`.
    pub(crate) fn snapshot(&mut self, ack_seq: u32, queued: u8, inputs: Option<(u32, u32)>) {
        self.acked = self.acked.max(ack_seq);
        let newest = ack_seq.saturating_add(u32::from(queued));
        let at = self.packets.partition_point(|p| p.last < newest);
        if let Some(p) = self.packets.get_mut(at)
            && p.last == newest
            && p.known == Known::Unknown
        {
            p.known = Known::Arrived;
        }
        if let Some((received, high)) = inputs {
            self.counts(received, high);
        }
    }

    fn counts(&mut self, received: u32, high: u32) {
        // The highest packet number the server saw is one that arrived.
        let at = self.packets.partition_point(|p| p.number < high);
        if let Some(p) = self.packets.get_mut(at)
            && p.number == high
            && p.known == Known::Unknown
        {
            p.known = Known::Arrived;
        }
        let missing = high.saturating_sub(received);
        // A late packet taken for lost arrived after all: its commands had come in a
        // later copy anyway, so the verdict stands; only the count follows.
        self.counted_missing = self.counted_missing.min(missing);
        let end = self.packets.partition_point(|p| p.number <= high);
        if end <= self.unjudged {
            return;
        }
        let open = &mut self.packets[self.unjudged..end];
        let unknown = open.iter().filter(|p| p.known == Known::Unknown).count() as u32;
        // The link's own drops are among the missing: the rest is for the unknown.
        let certain = open.iter().filter(|p| p.known == Known::Dropped).count() as u32;
        self.counted_missing = (self.counted_missing + certain).min(missing);
        let lost = missing - self.counted_missing;
        let verdict = if lost == 0 {
            Known::Arrived
        } else if lost >= unknown {
            Known::Lost
        } else {
            Known::Maybe
        };
        for p in open.iter_mut().filter(|p| p.known == Known::Unknown) {
            p.known = verdict;
        }
        self.counted_missing += lost.min(unknown);
        self.unjudged = end;
    }

    /// A correction's cause analysis found commands `first..first + count` never
    /// reached the server (re-running without them lands where the server has us).
    pub(crate) fn lost_by_resimulation(&mut self, first: u32, count: u32) {
        self.lost_runs.push((first, count));
    }

    /// What became of command `seq`, as far as known now.
    pub(crate) fn fate(&self, seq: u32) -> Fate {
        if seq > self.acked {
            return Fate::Pending;
        }
        if self
            .lost_runs
            .iter()
            .any(|&(first, count)| (first..first.saturating_add(count)).contains(&seq))
        {
            return Fate::Lost;
        }
        let at = self.packets.partition_point(|p| p.last < seq);
        let Some(first) = self.packets.get(at).filter(|p| p.first <= seq) else {
            return Fate::Delivered;
        };
        let mut carriers = self.packets[at..].iter().take_while(|p| p.first <= seq);
        if carriers.all(|p| matches!(p.known, Known::Lost | Known::Dropped)) {
            // Acknowledged past, so the server skipped it.
            return Fate::Lost;
        }
        match first.known {
            Known::Lost | Known::Dropped => Fate::Recovered,
            Known::Maybe => Fate::Unsure,
            Known::Arrived | Known::Unknown => Fate::Delivered,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets 1..=6, each made two ticks apart with two new commands and carrying
    /// every unacknowledged one.
    fn six_packets(f: &mut Fates) {
        for n in 1..=6 {
            f.sent(n, 1, 2 * n);
        }
    }

    #[test]
    fn a_lost_packets_commands_come_in_the_next_one_recovered_by_redundancy() {
        let mut f = Fates::default();
        six_packets(&mut f);
        // Snapshots see packets 1, 2, 4 and 6 arrive (their last seqs as ack + queued);
        // 3 and 5 are never seen: one was lost, or both, or neither.
        f.snapshot(1, 1, None);
        f.snapshot(2, 2, None);
        f.snapshot(5, 3, None);
        f.snapshot(10, 2, None);
        assert_eq!(f.fate(5), Fate::Delivered, "nothing said yet");
        // The server's counts: 5 of 6 received, so of 3 and 5 one was lost...
        f.snapshot(12, 0, Some((5, 6)));
        assert_eq!(f.fate(5), Fate::Unsure);
        assert_eq!(f.fate(3), Fate::Delivered, "packet 2 carried 3 and 4 first");
        // ...but had packet 5 been seen too, 3 alone is missing: it was lost, and its
        // two new commands (5 and 6) reached the server in packet 4.
        let mut f = Fates::default();
        six_packets(&mut f);
        for (ack, queued) in [(1, 1), (2, 2), (5, 3), (8, 2), (10, 2)] {
            f.snapshot(ack, queued, None);
        }
        f.snapshot(12, 0, Some((5, 6)));
        let fates: Vec<Fate> = (1..=12).map(|s| f.fate(s)).collect();
        use Fate::*;
        assert_eq!(
            fates,
            [
                Delivered, Delivered, Delivered, Delivered, Recovered, Recovered, Delivered,
                Delivered, Delivered, Delivered, Delivered, Delivered
            ]
        );
        assert_eq!(f.fate(13), Pending);
    }

    #[test]
    fn commands_in_no_packet_that_arrived_were_lost() {
        let mut f = Fates::default();
        // Packet 1 carries 1-2; 2-4 are lost (a burst), each carrying all unacked.
        f.sent(1, 1, 2);
        f.sent(2, 3, 4);
        f.sent(3, 3, 6);
        f.sent(4, 3, 8);
        f.sent(5, 3, 10);
        f.snapshot(2, 0, None);
        // Packet 5 arrived; the counts say 3 missing, and 2-4 are the only unseen.
        f.snapshot(10, 0, Some((2, 5)));
        assert_eq!(f.fate(2), Fate::Delivered);
        for seq in 3..=8 {
            assert_eq!(f.fate(seq), Fate::Recovered, "seq {seq}");
        }
        // A window of two: 3-4 rode only in packets 2 and 3, both lost.
        let mut f = Fates::default();
        f.sent(1, 1, 2);
        f.sent(2, 3, 4);
        f.sent(3, 3, 6);
        f.sent(4, 5, 8);
        f.snapshot(2, 0, None);
        f.snapshot(8, 0, Some((2, 4)));
        assert_eq!(f.fate(3), Fate::Lost);
        assert_eq!(f.fate(5), Fate::Recovered);
        assert_eq!(f.fate(7), Fate::Delivered);
    }

    #[test]
    fn commands_a_correction_found_missing_are_lost() {
        let mut f = Fates::default();
        six_packets(&mut f);
        f.snapshot(12, 0, None);
        f.lost_by_resimulation(7, 2);
        let lost: Vec<u32> = (1..=12).filter(|&s| f.fate(s) == Fate::Lost).collect();
        assert_eq!(lost, [7, 8]);
    }

    #[test]
    fn the_links_own_drops_are_certain_and_the_counts_judge_the_rest() {
        // Packets 1..=6 as above; the simulated link dropped 2 and 3 (2 carried 3-4 first,
        // 3 carried 5-6 first), then the server's counts say 2 of 6 are missing: those two.
        let mut f = Fates::default();
        six_packets(&mut f);
        f.dropped(2);
        f.dropped(3);
        f.dropped(99);
        f.snapshot(12, 0, Some((4, 6)));
        let fates: Vec<Fate> = (1..=8).map(|s| f.fate(s)).collect();
        use Fate::*;
        assert_eq!(
            fates,
            [
                Delivered, Delivered, Recovered, Recovered, Recovered, Recovered, Delivered,
                Delivered
            ]
        );
        // Three missing: the third, a real network's, is one of the other four.
        let mut f = Fates::default();
        six_packets(&mut f);
        f.dropped(2);
        f.dropped(3);
        f.snapshot(12, 0, Some((3, 6)));
        assert_eq!(f.fate(3), Recovered);
        assert_eq!(f.fate(7), Unsure, "packet 4 may be the one");
        // Every packet that carried 1-2 dropped (a window of two): never delivered.
        let mut f = Fates::default();
        f.sent(1, 1, 2);
        f.sent(2, 1, 4);
        f.sent(3, 3, 6);
        f.dropped(1);
        f.dropped(2);
        f.snapshot(6, 0, None);
        assert_eq!(
            (f.fate(1), f.fate(3), f.fate(5)),
            (Lost, Recovered, Delivered)
        );
    }

    #[test]
    fn no_packet_missing_means_every_first_copy_arrived() {
        let mut f = Fates::default();
        six_packets(&mut f);
        f.snapshot(12, 0, Some((6, 6)));
        assert!((1..=12).all(|s| f.fate(s) == Fate::Delivered));
    }
}
