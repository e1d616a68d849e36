//! The rules of the article, one file per section: GENERALS and COMMAND
//! CONTROL (`command`), COMMUNICATIONS (`comms`), campaign movement and
//! COMMUNICATION EFFECTS ON MOVEMENT (`movement`), ATTRITION OF ISOLATED
//! BRITISH GARRISONS (`attrition`), the battles: TRANSFERRING TO THE MINIATURES
//! GAME, TRIVIAL COMBATS, PURSUIT PENALTY, POST BATTLE RECOVERY (`battle`), SUPPLY
//! (`supply`: artillery ammunition and supply units spent), FORTIFICATIONS,
//! FORTIFICATIONS IN COMBAT and ENTRENCHMENTS (`fortifications`), REPLACEMENTS
//! (`replacements`), MILITIA UNITS (`militia`). What they share is in `board`.

pub mod agreement;
pub mod attrition;
pub mod battle;
pub mod command;
pub mod comms;
pub mod fleets;
pub mod fortifications;
pub mod militia;
pub mod movement;
pub mod odds;
pub mod replacements;
pub mod supply;
