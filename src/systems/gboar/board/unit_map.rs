//! [`UnitMap`]: the state's units by id, in id order, as a list of units
//! beside a shared list of ids and an index of them, rather than a
//! `BTreeMap` (issue 11).
//!
//! Every rule asks where a unit is and what it is like many times a step,
//! and every trial run of a check copies the whole state. Here a lookup is
//! one hash of the id (the module's own id hasher) and one comparison, a
//! walk is a walk of two slices, and a copy copies a list of pointers: the
//! ids and their index are shared between copies (`Arc`), and copied only
//! when a copy gains or loses a unit, which few steps do; and each unit is
//! shared too (`Arc`), copied when a copy first writes it, so a copy costs
//! what it changes, not the whole board (a unit's copy was about 70
//! instructions and a state's 15,000, 3.7% of self-play's). It reads, writes
//! and iterates as the map it replaces did (id order, one unit per id, the
//! same serialised map), so the state's YAML, its canonical bytes and its
//! hash are unchanged; and every use of the units goes through it, so a
//! later change of how units are held (ids as counter indexes) is a change
//! of this file.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::systems::gboar::board::state::UnitState;
use crate::systems::gboar::board::IdHasher;

/// The units of a state by id, in id order (the order of `str`).
#[derive(Clone, Default)]
pub struct UnitMap {
    keys: Arc<Keys>,
    /// `units[i]` is the unit `keys.ids[i]`, shared with the copies that
    /// have not written it.
    units: Vec<Arc<UnitState>>,
}

/// The ids of a [`UnitMap`], sorted, no id twice, and where each is.
#[derive(Clone, Default)]
struct Keys {
    ids: Vec<String>,
    /// A lookup index only: nothing walks it, so its order shows nowhere.
    index: HashMap<String, usize, BuildHasherDefault<IdHasher>>,
}

impl Keys {
    fn of(ids: Vec<String>) -> Keys {
        let index = ids.iter().enumerate().map(|(i, id)| (id.clone(), i)).collect();
        Keys { ids, index }
    }
}

/// The units in id order.
pub type Values<'a> = std::iter::Map<std::slice::Iter<'a, Arc<UnitState>>, fn(&'a Arc<UnitState>) -> &'a UnitState>;

/// [`Values`] writable: each unit a copy shares is copied as it is reached.
pub type ValuesMut<'a> =
    std::iter::Map<std::slice::IterMut<'a, Arc<UnitState>>, fn(&'a mut Arc<UnitState>) -> &'a mut UnitState>;

/// A walk of the units in id order, with their ids.
pub type Iter<'a> = std::iter::Zip<std::slice::Iter<'a, String>, Values<'a>>;

/// [`Iter`] with the units writable, as [`ValuesMut`].
pub type IterMut<'a> = std::iter::Zip<std::slice::Iter<'a, String>, ValuesMut<'a>>;

fn shared(unit: &Arc<UnitState>) -> &UnitState {
    unit
}

fn own(unit: &mut Arc<UnitState>) -> &mut UnitState {
    Arc::make_mut(unit)
}

impl UnitMap {
    pub fn new() -> UnitMap {
        UnitMap::default()
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.keys.index.get(id).copied()
    }

    pub fn get(&self, id: &str) -> Option<&UnitState> {
        self.find(id).map(|i| &*self.units[i])
    }

    /// The unit `id` to write: copied first when a copy of this map shares it.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut UnitState> {
        self.find(id).map(|i| Arc::make_mut(&mut self.units[i]))
    }

    pub fn contains_key(&self, id: &str) -> bool {
        self.find(id).is_some()
    }

    /// The unit `id` set to `unit`; the one it replaces, if any.
    pub fn insert(&mut self, id: String, unit: UnitState) -> Option<UnitState> {
        if let Some(i) = self.find(&id) {
            return Some(Arc::unwrap_or_clone(std::mem::replace(&mut self.units[i], Arc::new(unit))));
        }
        let at = self.keys.ids.partition_point(|k| k.as_str() < id.as_str());
        let mut ids = self.keys.ids.clone();
        ids.insert(at, id);
        self.keys = Arc::new(Keys::of(ids));
        self.units.insert(at, Arc::new(unit));
        None
    }

    pub fn remove(&mut self, id: &str) -> Option<UnitState> {
        let i = self.find(id)?;
        let mut ids = self.keys.ids.clone();
        ids.remove(i);
        self.keys = Arc::new(Keys::of(ids));
        Some(Arc::unwrap_or_clone(self.units.remove(i)))
    }

    pub fn len(&self) -> usize {
        self.units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    pub fn iter(&self) -> Iter<'_> {
        self.keys.ids.iter().zip(self.values())
    }

    /// Every unit writable: each a copy shares is copied (a walk that
    /// writes few units is better made with [`UnitMap::get_mut`]).
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        let ids = self.keys.ids.iter();
        ids.zip(self.units.iter_mut().map(own as fn(&mut Arc<UnitState>) -> &mut UnitState))
    }

    pub fn keys(&self) -> std::slice::Iter<'_, String> {
        self.keys.ids.iter()
    }

    pub fn values(&self) -> Values<'_> {
        self.units.iter().map(shared as fn(&Arc<UnitState>) -> &UnitState)
    }

    /// As [`UnitMap::iter_mut`], without the ids.
    pub fn values_mut(&mut self) -> ValuesMut<'_> {
        self.units.iter_mut().map(own as fn(&mut Arc<UnitState>) -> &mut UnitState)
    }

    /// Each unit of this map in id order, with `other`'s of the same id
    /// if it has one: a walk of both side by side when they share their
    /// ids (a state and the state a step made of it most often do), else
    /// a lookup in `other` per unit.
    pub fn beside<'a>(
        &'a self,
        other: &'a UnitMap,
    ) -> impl Iterator<Item = (&'a String, &'a UnitState, Option<&'a UnitState>)> + 'a {
        let shared = Arc::ptr_eq(&self.keys, &other.keys);
        self.iter().enumerate().map(move |(i, (id, unit))| {
            (id, unit, if shared { other.units.get(i).map(|u| &**u) } else { other.get(id) })
        })
    }

    /// Keeps the units `keep` says to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &UnitState) -> bool) {
        let units = std::mem::take(&mut self.units);
        let mut ids = Vec::with_capacity(units.len());
        for (id, unit) in self.keys.ids.iter().zip(units) {
            if keep(id, &unit) {
                ids.push(id.clone());
                self.units.push(unit);
            }
        }
        if ids.len() != self.keys.ids.len() {
            self.keys = Arc::new(Keys::of(ids));
        }
    }
}

impl PartialEq for UnitMap {
    fn eq(&self, other: &UnitMap) -> bool {
        (Arc::ptr_eq(&self.keys, &other.keys) || self.keys.ids == other.keys.ids) && self.units == other.units
    }
}

impl Eq for UnitMap {}

/// As the map it replaces shows itself: id and unit, in id order.
impl std::fmt::Debug for UnitMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<&str> for UnitMap {
    type Output = UnitState;

    /// The unit `id`; panics if there is none, as a map's index does (tests
    /// and benches only: the rules ask with [`UnitMap::get`]).
    fn index(&self, id: &str) -> &UnitState {
        self.get(id).unwrap_or_else(|| panic!("no unit {id} in the state"))
    }
}

impl std::ops::Index<&String> for UnitMap {
    type Output = UnitState;

    fn index(&self, id: &String) -> &UnitState {
        &self[id.as_str()]
    }
}

impl<'a> IntoIterator for &'a UnitMap {
    type Item = (&'a String, &'a UnitState);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut UnitMap {
    type Item = (&'a String, &'a mut UnitState);
    type IntoIter = IterMut<'a>;

    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

impl FromIterator<(String, UnitState)> for UnitMap {
    /// As a map collects: in id order, a later unit of the same id
    /// replacing an earlier one.
    fn from_iter<I: IntoIterator<Item = (String, UnitState)>>(iter: I) -> UnitMap {
        iter.into_iter().collect::<BTreeMap<String, UnitState>>().into()
    }
}

impl From<BTreeMap<String, UnitState>> for UnitMap {
    fn from(map: BTreeMap<String, UnitState>) -> UnitMap {
        let (ids, units): (Vec<String>, Vec<UnitState>) = map.into_iter().unzip();
        UnitMap { keys: Arc::new(Keys::of(ids)), units: units.into_iter().map(Arc::new).collect() }
    }
}

/// A map from id to unit, in id order: the bytes a `BTreeMap` wrote.
impl Serialize for UnitMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// Read as the `BTreeMap` it replaces reads: any order, sorted by id,
/// a later unit of the same id replacing an earlier one. The units of a
/// state adjutant wrote come in id order, and are taken as they come.
impl<'de> Deserialize<'de> for UnitMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<UnitMap, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = UnitMap;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of unit ids to units")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<UnitMap, A::Error> {
                let mut read: Vec<(String, UnitState)> = Vec::new();
                while let Some(entry) = map.next_entry::<String, UnitState>()? {
                    read.push(entry);
                }
                if !read.windows(2).all(|w| w[0].0 < w[1].0) {
                    // A stable sort keeps equal ids in the order read, and
                    // the last of each is kept.
                    read.sort_by(|a, b| a.0.cmp(&b.0));
                    let mut kept: Vec<(String, UnitState)> = Vec::with_capacity(read.len());
                    for entry in read {
                        match kept.last_mut() {
                            Some(last) if last.0 == entry.0 => *last = entry,
                            _ => kept.push(entry),
                        }
                    }
                    read = kept;
                }
                let (ids, units): (Vec<String>, Vec<UnitState>) = read.into_iter().unzip();
                Ok(UnitMap { keys: Arc::new(Keys::of(ids)), units: units.into_iter().map(Arc::new).collect() })
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(steps: u8) -> UnitState {
        UnitState::fresh(None, None, steps)
    }

    #[test]
    fn keeps_id_order_and_one_unit_per_id() {
        let mut m = UnitMap::new();
        assert_eq!(m.insert("b".into(), unit(1)), None);
        assert_eq!(m.insert("a".into(), unit(2)), None);
        assert_eq!(m.insert("c".into(), unit(3)), None);
        assert_eq!(m.insert("b".into(), unit(4)).map(|u| u.steps), Some(1));
        assert_eq!(m.keys().map(String::as_str).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(m.values().map(|u| u.steps).collect::<Vec<_>>(), [2, 4, 3]);
        assert_eq!(m.remove("a").map(|u| u.steps), Some(2));
        assert_eq!(m.remove("a"), None);
        assert!(!m.contains_key("a") && m.contains_key("c"));
        m.retain(|id, _| id != "c");
        assert_eq!(m.len(), 1);
        assert_eq!(m["b"].steps, 4);
    }

    /// A walk beside another map pairs each unit with the other's of its
    /// id, whether the two share their ids (a copy) or not.
    #[test]
    fn beside_pairs_units_by_id() {
        let mut a = UnitMap::new();
        a.insert("a".into(), unit(1));
        a.insert("b".into(), unit(2));
        let mut copy = a.clone();
        copy.get_mut("b").unwrap().steps = 5;
        let pairs = |x: &UnitMap, y: &UnitMap| -> Vec<(String, u8, Option<u8>)> {
            x.beside(y).map(|(id, u, v)| (id.clone(), u.steps, v.map(|v| v.steps))).collect()
        };
        assert_eq!(pairs(&a, &copy), [("a".into(), 1, Some(1)), ("b".into(), 2, Some(5))]);
        let mut other = UnitMap::new();
        other.insert("b".into(), unit(3));
        other.insert("c".into(), unit(4));
        assert_eq!(pairs(&a, &other), [("a".into(), 1, None), ("b".into(), 2, Some(3))]);
        assert_eq!(pairs(&other, &a), [("b".into(), 3, Some(2)), ("c".into(), 4, None)]);
    }

    #[test]
    fn a_copy_that_gains_or_loses_a_unit_leaves_the_original_as_it_was() {
        let mut a = UnitMap::new();
        a.insert("a".into(), unit(1));
        a.insert("b".into(), unit(2));
        let mut b = a.clone();
        b.insert("c".into(), unit(3));
        b.remove("a");
        b.get_mut("b").unwrap().steps = 5;
        assert_eq!(a.keys().map(String::as_str).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!((a["a"].steps, a["b"].steps, a.get("c")), (1, 2, None));
        assert_eq!(b.keys().map(String::as_str).collect::<Vec<_>>(), ["b", "c"]);
        assert_eq!((b.get("a"), b["b"].steps, b["c"].steps), (None, 5, 3));
        // Equal units under ids not shared are equal maps.
        let mut c = UnitMap::new();
        c.insert("c".into(), unit(3));
        c.insert("b".into(), unit(5));
        assert_eq!(b, c);
        c.get_mut("c").unwrap().steps = 1;
        assert_ne!(b, c);
    }

    /// Each unit is shared with a copy until one of them writes it: a
    /// write through any of the ways to write reaches that map alone.
    #[test]
    fn a_write_to_a_copy_leaves_the_original_as_it_was() {
        let mut a = UnitMap::new();
        a.insert("a".into(), unit(1));
        a.insert("b".into(), unit(2));
        let steps = |m: &UnitMap| m.values().map(|u| u.steps).collect::<Vec<_>>();
        let mut b = a.clone();
        b.values_mut().for_each(|u| u.steps += 1);
        let mut c = a.clone();
        c.iter_mut().filter(|(id, _)| *id == "b").for_each(|(_, u)| u.steps = 9);
        let mut d = a.clone();
        assert_eq!(d.insert("a".into(), unit(7)).map(|u| u.steps), Some(1));
        assert_eq!(d.remove("b").map(|u| u.steps), Some(2));
        assert_eq!((steps(&a), steps(&b), steps(&c), steps(&d)), (vec![1, 2], vec![2, 3], vec![1, 9], vec![7]));
        // And a write to the original leaves the copies as they were.
        a.get_mut("a").unwrap().steps = 5;
        assert_eq!((steps(&a), steps(&c)), (vec![5, 2], vec![1, 9]));
    }

    #[test]
    fn reads_and_writes_as_the_map_it_replaces() {
        let map: BTreeMap<String, UnitState> =
            [("z".to_string(), unit(1)), ("a-1".to_string(), unit(2)), ("a".to_string(), unit(1))].into();
        let ours: UnitMap = map.clone().into();
        assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&map).unwrap());
        let back: UnitMap = serde_json::from_str(&serde_json::to_string(&map).unwrap()).unwrap();
        assert_eq!(back, ours);
        // Out of order and an id twice: as a map reads it, the last kept.
        let text = r#"{"z":{"steps":1,"condition":"parade-order"},"a":{"steps":1,"condition":"parade-order"},"z":{"steps":2,"condition":"parade-order"}}"#;
        let read: UnitMap = serde_json::from_str(text).unwrap();
        let as_map: BTreeMap<String, UnitState> = serde_json::from_str(text).unwrap();
        assert_eq!(read, UnitMap::from(as_map));
        assert_eq!((read.len(), read["z"].steps), (2, 2));
        let collected: UnitMap = map.into_iter().rev().collect();
        assert_eq!(collected, ours);
    }
}
