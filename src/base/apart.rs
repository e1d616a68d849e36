//! Work done ahead on a thread of its own, joined when its [`Apart`] is
//! dropped: for work a command would otherwise do at its first need (an
//! index, a drawing), started early so that the need finds it done.
//!
//! The work must be such that doing it at the need instead is the same
//! (a `OnceLock`, a drawing kept by key): if the thread cannot be started,
//! nothing is done ahead and nothing else changes. Joining on drop means
//! no such thread outlives the command that started it, whatever way the
//! command ends (an error returned early included): nothing runs while the
//! process exits.

/// A thread doing work ahead, joined when dropped.
#[must_use = "the work is joined when this is dropped"]
pub struct Apart(Option<std::thread::JoinHandle<()>>);

impl Apart {
    /// Start `work` on a thread of its own (none, if the system will not
    /// start one: the work is then done where it is needed).
    pub fn start(work: impl FnOnce() + Send + 'static) -> Apart {
        Apart(std::thread::Builder::new().spawn(work).ok())
    }

    /// Nothing done ahead.
    pub fn none() -> Apart {
        Apart(None)
    }
}

impl Drop for Apart {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            // A panic there did nothing ahead: the work is done at its need.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[test]
    fn the_work_is_done_when_the_handle_is_dropped() {
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
    fn a_panic_ahead_is_not_the_commands() {
        drop(Apart::start(|| panic!("nothing ahead")));
    }
}
