//! Fog-of-war reports (Adjutant issue #6): what each side saw, the view a
//! player may be shown, and the text, HTML, SVG and PNG made from it; plus
//! the umpire's report, which shows everything.
//!
//! The one rule that shapes this module: **nothing in a player's report may
//! reveal a unit, officer, position or loss his side did not see.** So the
//! templates and the map never see the [`BattleState`]. They see a
//! [`SideView`], built by the pure function [`side_view`] that *copies* only
//! what may be shown: his own units in full, enemies seen now as a staff
//! officer would describe them (arm, about how many men, formation, facing,
//! place — no name unless identities are known), and enemies seen before at
//! their last known place ([`LastKnown`], fed from each turn's
//! [`SideSighting`]). A template that tried to print an enemy's name would
//! find no such field.
//!
//! Pieces, one job each:
//! - [`sighting`]: the per-turn record of which enemies a side saw and from
//!   where, and the last-known map built from those records;
//! - [`place`]: words for places ("200 yards north-east of the Brawner farm")
//!   and facings;
//! - [`view`]: [`side_view`] and [`umpire_view`], the pure filters;
//! - [`map`]: the SVG map, drawn from a view's map layer only;
//! - [`png`]: the SVG rasterised with resvg and a font shipped with the
//!   crate, because many mail clients will not show SVG;
//! - [`narrative`]: the turn's events told to a side, enemies unnamed;
//! - [`render`]: the Tera templates in `templates/` for text and HTML.
//!
//! [`BattleState`]: crate::rules::iron_brigade::state::BattleState

pub mod map;
pub mod narrative;
pub mod place;
pub mod png;
pub mod render;
pub mod sighting;
pub mod view;

pub use map::{MapLayer, map_svg};
pub use png::svg_to_png;
pub use render::{PlayerReport, Reporter, UmpireReport};
pub use sighting::{LastKnown, LastSeen, SideSighting, Sighting, witnessed_ends};
pub use view::{
    Dispatch, RefusedMail, ReportInputs, SideView, UmpireInputs, UmpireView, UnitOrders, side_view,
    umpire_view,
};

/// A report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("side {0} is not in the battle; check the side ids of the game")]
    UnknownSide(u8),
    #[error(
        "a report template failed to render: {0}; the template in templates/ needs fixing (this is a bug, not bad input)"
    )]
    Template(String),
    #[error("the map could not be drawn as PNG: {0}; the SVG map is still in the HTML part")]
    Png(String),
}
