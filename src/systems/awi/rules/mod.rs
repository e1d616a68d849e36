//! The rules of the article, one file per section: GENERALS and COMMAND
//! CONTROL (`command`), COMMUNICATIONS (`comms`), campaign movement and
//! COMMUNICATION EFFECTS ON MOVEMENT (`movement`), ATTRITION OF ISOLATED
//! BRITISH GARRISONS (`attrition`). What they share is in `board`.

pub mod attrition;
pub mod command;
pub mod comms;
pub mod movement;
