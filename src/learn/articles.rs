//! The reference articles the lessons draw on, named as a reader finds them: each
//! one's title and where it was published, once, for `netarena learn`'s list and the
//! lessons' tables.

/// One article: its title and the series, book or site it appeared in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Article {
    pub(crate) title: &'static str,
    pub(crate) published: &'static str,
}

impl Article {
    /// The title and where it appeared, as a reader would search for it.
    pub(crate) fn cited(&self) -> String {
        format!("\"{}\" ({})", self.title, self.published)
    }
}

/// Chapter 8 of Joshua Glazer and Sanjay Madhav's book: the dumb terminal,
/// interpolation, prediction, dead reckoning, tells and server-side rewind.
pub(crate) const LATENCY_HANDLING: Article = Article {
    title: "Improved Latency Handling",
    published: "chapter 8 of Multiplayer Game Programming, Glazer and Madhav, 2016",
};

/// Saved moves, acknowledgements and replay, shown under simulated bad networks.
pub(crate) const RECONCILIATION: Article = Article {
    title: "Client-Side Prediction and Server Reconciliation",
    published: "a weekly blog on latency mitigation in games",
};

/// Frame deltas in the input packet, redundant inputs, the per-client jitter buffer
/// that also stops speed hacks.
pub(crate) const PREDICTION_REVISITED: Article = Article {
    title: "Making a Multiplayer FPS in C++ Part 8: Client-Side Prediction Revisited",
    published: "a blog series",
};

/// Batching inputs into packets, buffering snapshots, the correction-loop bug.
pub(crate) const MOVEMENT_CORRECTIONS: Article = Article {
    title: "Multiplayer Architecture - Part 3: Player movement Implementation",
    published: "a blog series",
};

/// Tick, frame and update rates, lerp, bullets born on the server, the ghost.
pub(crate) const PROOFPS_DEV_DOC: Article = Article {
    title: "PRooFPS-dd Developer Documentation",
    published: "the game's networking pages",
};
