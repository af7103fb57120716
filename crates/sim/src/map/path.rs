//! Shortest walks over a map's floor: how server bots and the client's scripted
//! players find their way to someone.

use std::collections::VecDeque;

use super::Map;

impl Map {
    /// Breadth-first search over floor cells (4-neighbour, so paths never cut wall
    /// corners): the cells to walk through after `from`, ending at `to`. Empty if
    /// unreachable.
    pub fn path(&self, from: (i32, i32), to: (i32, i32)) -> VecDeque<(i32, i32)> {
        let (w, h) = (i32::from(self.width()), i32::from(self.height()));
        let index = |(x, y): (i32, i32)| (y * w + x) as usize;
        let inside = |(x, y): (i32, i32)| x >= 0 && y >= 0 && x < w && y < h;
        if !inside(from) || !inside(to) || self.is_wall(to.0, to.1) {
            return VecDeque::new();
        }
        let mut came: Vec<Option<(i32, i32)>> = vec![None; (w * h) as usize];
        let mut queue = VecDeque::from([from]);
        came[index(from)] = Some(from);
        while let Some(c) = queue.pop_front() {
            if c == to {
                break;
            }
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let n = (c.0 + dx, c.1 + dy);
                if inside(n) && !self.is_wall(n.0, n.1) && came[index(n)].is_none() {
                    came[index(n)] = Some(c);
                    queue.push_back(n);
                }
            }
        }
        let mut path = VecDeque::new();
        let mut c = to;
        while c != from {
            let Some(prev) = came[index(c)] else {
                return VecDeque::new();
            };
            path.push_front(c);
            c = prev;
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_go_around_walls() {
        let map = Map::parse("t", "#######\n#S#...#\n#.#.#.#\n#...#.#\n#######").unwrap();
        let path = map.path((1, 1), (5, 1));
        assert_eq!(path.back(), Some(&(5, 1)));
        assert!(path.iter().all(|&(x, y)| !map.is_wall(x, y)));
        assert_eq!(path.len(), 8, "down, right, up and right again: {path:?}");
        assert!(
            map.path((1, 1), (2, 1)).is_empty(),
            "a wall is no destination"
        );
    }
}
