//! charts/leader-casualty.yaml (13.1 "*", 16.1): the Leader Casualty Table.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// leader-casualty.yaml

/// `charts/leader-casualty.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderCasualtyFile {
    pub source: String,
    pub rules: Vec<String>,
    pub leader_casualty: LeaderCasualtyTable,
}

/// 13.1 "*", 16.1: what a leader casualty costs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderCasualtyTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// The class of a leader no class lists.
    pub default_class: String,
    pub classes: Vec<LeaderClass>,
}

/// One class of leader.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderClass {
    pub id: String,
    /// Savannah 2.9: VPs to the opponent, in halves.
    pub vp_halves: i32,
    /// 16.1: to the leader's own army.
    pub army_morale: i32,
    /// Savannah 4.18: Momentum Chits to the leader's own army.
    pub momentum: i32,
    /// Leader ids of counters.yaml.
    pub leaders: Vec<String>,
    pub source: String,
    pub note: Option<String>,
}

impl<'a> Checker<'a> {
    pub(super) fn leader_casualty(&mut self) {
        let t = &self.c.leader_casualty.leader_casualty;
        let f = LEADER_CASUALTY;
        self.unique(f, "leader_casualty.classes", t.classes.iter().map(|c| c.id.as_str()));
        let classes: BTreeSet<&str> = t.classes.iter().map(|c| c.id.as_str()).collect();
        self.reference(f, "leader_casualty.default_class", &t.default_class, &classes, "a class of this table");
        let mut placed: BTreeMap<&str, String> = BTreeMap::new();
        for (i, class) in t.classes.iter().enumerate() {
            for (j, leader) in class.leaders.iter().enumerate() {
                let at = format!("leader_casualty.classes[{i}].leaders[{j}]");
                if let Some(first) = placed.get(leader.as_str()) {
                    self.p.add(f, &at, format!("leader '{leader}' is in two classes ({first} too)"));
                } else {
                    placed.insert(leader, at.clone());
                }
                if let Some(counters) = &self.ctx.counters {
                    match counters.get(leader) {
                        None => self.p.add(f, &at, format!("'{leader}' is not a counter of counters.yaml")),
                        Some(c) if !c.leader => {
                            self.p.add(f, &at, format!("'{leader}' is a counter of counters.yaml but not a leader"))
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }
}
