//! Work done ahead on a thread of its own: started early, so that where a
//! command needs it, it is done (a walk down the dice chain, compiled
//! templates, a drawing). One mechanism for every such thread:
//!
//! - if the system will not start a thread, the work is done at once,
//!   here, and its result kept: nothing else changes;
//! - [`Apart::join`] gives the result where it is needed (a panic there is
//!   the command's, resumed);
//! - an `Apart` dropped unjoined (an error returned early, or work that is
//!   only ever wanted ahead) joins its thread first: no such thread
//!   outlives the command that started it, so nothing runs while the
//!   process exits.

use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// Work `T` done ahead, joined when dropped.
#[must_use = "the work is joined when this is dropped"]
pub struct Apart<T: Send + 'static = ()>(Option<Work<T>>);

enum Work<T> {
    /// On its thread; `None` if the work was taken back (never started).
    Thread(JoinHandle<Option<T>>),
    /// Done here, the thread not started.
    Done(T),
}

impl<T: Send + 'static> Apart<T> {
    /// Start `work` on a thread of its own, or do it now if the system
    /// will not start one.
    pub fn start(work: impl FnOnce() -> T + Send + 'static) -> Apart<T> {
        // Held where both sides reach it: a thread that failed to start
        // hands the work back.
        let held = Arc::new(Mutex::new(Some(work)));
        let theirs = Arc::clone(&held);
        let take = |held: &Mutex<Option<_>>| held.lock().unwrap_or_else(PoisonError::into_inner).take();
        match std::thread::Builder::new().spawn(move || take(&theirs).map(|work| work())) {
            Ok(thread) => Apart(Some(Work::Thread(thread))),
            Err(_) => Apart(take(&held).map(|work| Work::Done(work()))),
        }
    }

    /// The work's result, waited for.
    pub fn join(mut self) -> T {
        let done = match self.0.take() {
            Some(Work::Thread(thread)) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Some(Work::Done(result)) => Some(result),
            None => None,
        };
        done.expect("the work of an Apart is done once, on its thread or here")
    }
}

impl Apart<()> {
    /// Nothing done ahead.
    pub fn none() -> Apart<()> {
        Apart(Some(Work::Done(())))
    }
}

impl<T: Send + 'static> Drop for Apart<T> {
    fn drop(&mut self) {
        if let Some(Work::Thread(thread)) = self.0.take() {
            // Unjoined: the result is not wanted, nor a panic there (work
            // ahead that failed is done again, or not, where it is needed).
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn joined_it_gives_the_result() {
        assert_eq!(Apart::start(|| 6 * 7).join(), 42);
    }

    #[test]
    fn dropped_it_waits_for_the_work() {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let apart = Apart::start(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            flag.store(true, Ordering::SeqCst);
        });
        drop(apart);
        assert!(done.load(Ordering::SeqCst), "dropping the handle waits for the work");
    }

    #[test]
    fn a_panic_ahead_is_the_commands_only_if_joined() {
        drop(Apart::start(|| panic!("nothing ahead")));
        let joined = std::panic::catch_unwind(|| Apart::start(|| -> u8 { panic!("wanted") }).join());
        assert!(joined.is_err(), "a joined panic is resumed");
    }
}
