//! SFRM's brigade-scale game as a pure rules core: *ACW Shit For Real Men*
//! v1.477 at its own scale (Table 1: 1" = 100 yd, 30-minute turns), with
//! brigades, artillery battalions and supply trains under divisional,
//! corps and army generals.
//!
//! [`resolve_turn`] plays one turn: (state, orders, dice) -> (state,
//! events), dice only through [`crate::dice::DiceSource`], each roll with
//! its purpose. Events carry their working (dice, terms and the section
//! each comes from). Rulings where the text is silent or damaged:
//! docs/rulings-sfrm.md, "Brigade scale".
//!
//! Built:
//! - the nouns ([`nouns`]): elements, units, generals, formations, ground,
//!   the serialisable [`SfrmBattle`];
//! - the tables as data ([`tables`]): Table 2 (generals), 4 (movement), 5
//!   (green units), 6 and 7 (combat), 8 (weather, daylight, and the
//!   month, year and start-time rolls beside it), 9 (army
//!   costing, [`army_cost`]); the army costing system's limits on an
//!   order of battle and scenario setup's points and entrenchment
//!   ([`organisation`]);
//! - the turn ([`turn`]): "Turn Order" (attacker's phase, then
//!   defender's); the command roll and command range (Command i, ii);
//!   movement with Table 4, the terrain/manoeuvre modifier, wheels and a
//!   line's frontage changed as it moves, weather and
//!   night, the 4"/1" stand-offs; charges into contact; formation changes;
//!   one turn of entrenching; unrouting; combat (non-phasing then phasing,
//!   contact fire repeated), firing arcs, sight, higher elevation (over
//!   the ground and over friendly troops), Table 5,
//!   Tables 6 and 7, enfilade, cavalry charge and double canister
//!   multiples, attached generals' combat value; Table 3 for generals
//!   attached to a unit that takes a casualty, for a lone general
//!   contacted or hit by fire (capture, rout move), and the promotions that
//!   replace removed generals; routs and dispersal; rout
//!   moves; breakthrough advances and breakthrough combat; army morale;
//!   supply traced by road from sources through trains, cut by enemy on the
//!   road, out of supply markers after combat ([`supply`]); the on-road
//!   rate for march columns on a road; fatigue from each day's combat,
//!   marching, entrenching and rest, settled when dawn begins.
//! - orders in words ([`language`]): a mail body read into [`TurnOrders`]
//!   for one side, never failing, with errors and suggestions; orders to a
//!   general passed to his brigades; read-backs for the receipt;
//! - what a side sees ([`view`]): its own units fully, the enemy within
//!   SFRM sight, the turn's events as that side may know them, a
//!   narrative, and the umpire's view.
//! - maps ([`map`]): what a side sees, and the umpire's everything, as
//!   SVG in table inches (1" = 100 yd).
//!
//! Not yet built (absent, not pretended):
//! - a supply train "temporarily in supply for 1 turn" by being removed at
//!   its end; supply along a chain of roads that meet where no train or
//!   source stands; road moves from one road onto another in one turn;
//! - reorganisation of promoted generals (a day or a week of rest);
//! - a general attaching to more than one unit at once; messengers and
//!   dispatches at this scale (the messenger rules in
//!   [`crate::rules::sfrm`] work at Iron Brigade scale);
//! - targets "in contact with directly adjacent friendly elements";
//! - conforming to terrain edges off the road;
//! - entrenching beyond hasty (1 level): standard and improved works take a
//!   day and a week;
//! - casualties returning overnight and captured troops; scenario setup's
//!   deployment zones; the artillery reserve division and its siege guns
//!   (army costing).

pub mod corrections;
pub mod language;
pub mod mail_engine;
pub mod map;
pub mod nouns;
pub mod orders;
pub mod organisation;
pub mod scenario;
pub mod seat;
pub mod supply;
pub mod tables;
pub mod turn;
pub mod view;

#[cfg(test)]
mod tests;

pub use nouns::{
    Area, Arm, Contact, Formation, General, GeneralId, Ground, Gun, Pos, Quality, Rank, Road,
    Season, SfrmBattle, Side, SmallArm, SupplySource, Unit, UnitId, Weather,
};
pub use orders::{Order, SfrmEvent, Subphase, Term, TurnOrders};
pub use tables::{SideCost, army_cost};
pub use turn::{TurnError, resolve_turn};
