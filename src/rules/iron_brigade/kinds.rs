//! The shared vocabulary of Iron Brigade: the closed sets of names that the
//! scenario format, the order language and the adjudicator all use.
//!
//! Each enum serialises in kebab case (`rifled-musket`, `company-column`) so a
//! scenario file, an order and a report spell them the same way. `ALL` lists
//! every value so that callers can suggest the nearest name on a typo.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Error for a name that is not one of an enum's values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{given}`; expected one of: {expected}")]
pub struct UnknownName {
    pub what: &'static str,
    pub given: String,
    pub expected: String,
}

macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal, { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The kebab-case name used in scenarios, orders and reports.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let wanted = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == wanted)
                    .ok_or_else(|| UnknownName {
                        what: $what,
                        given: s.to_string(),
                        expected: $name::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", "),
                    })
            }
        }
    };
}

named_enum!(
    /// The weapon charts of APSoF XIII ("Weapons Effects Charts") and VII.H
    /// (snipers), by the chart names in kebab case.
    Weapon, "weapon", {
        SmoothboreMusket => "smoothbore-musket",
        ObsoleteRifleMusket => "obsolete-rifle-musket",
        RifledMusket => "rifled-musket",
        BreechloadingRifle => "breechloading-rifle",
        RepeatingRifle => "repeating-rifle",
        MuzzleLoadingCarbine => "muzzle-loading-carbine",
        ObsoleteBreechloadingCarbine => "obsolete-breechloading-carbine",
        BreechloadingCarbine => "breechloading-carbine",
        RepeatingCarbine => "repeating-carbine",
        PistolsOrShotguns => "pistols-or-shotguns",
        MountainRifle => "mountain-rifle",
        SixPdrGun => "6pdr-gun",
        TwelvePdrMountainHowitzer => "12pdr-mountain-howitzer",
        LightRifle => "light-rifle",
        TwelvePdrGun => "12pdr-gun",
        TwelvePdrHowitzer => "12pdr-howitzer",
        MediumRifle => "medium-rifle",
        TwentyFourPdrHowitzer => "24pdr-howitzer",
        HeavyRifle => "heavy-rifle",
        ThirtyTwoPdrHowitzer => "32pdr-howitzer",
        Sniper => "sniper",
    }
);

impl Weapon {
    /// Guns and howitzers: fired by crew castings, one die per two crew (APSoF V.B.1).
    pub fn is_artillery(self) -> bool {
        matches!(
            self,
            Weapon::MountainRifle
                | Weapon::SixPdrGun
                | Weapon::TwelvePdrMountainHowitzer
                | Weapon::LightRifle
                | Weapon::TwelvePdrGun
                | Weapon::TwelvePdrHowitzer
                | Weapon::MediumRifle
                | Weapon::TwentyFourPdrHowitzer
                | Weapon::HeavyRifle
                | Weapon::ThirtyTwoPdrHowitzer
        )
    }

    /// Repeating rifles and carbines: first fire from them is a perilous
    /// situation for troops never exposed to it (APSoF V.G.1.iii).
    pub fn is_repeater(self) -> bool {
        matches!(self, Weapon::RepeatingRifle | Weapon::RepeatingCarbine)
    }

    /// Breechloaders and repeaters may split-move even when passing through
    /// other units (APSoF IV.G, note ****).
    pub fn is_breechloader(self) -> bool {
        matches!(
            self,
            Weapon::BreechloadingRifle
                | Weapon::RepeatingRifle
                | Weapon::ObsoleteBreechloadingCarbine
                | Weapon::BreechloadingCarbine
                | Weapon::RepeatingCarbine
        )
    }
}

named_enum!(
    /// The arm of service, which selects the movement column (APSoF IV.G) and
    /// how fire dice are counted (APSoF V.B.1).
    Arm, "arm", {
        Infantry => "infantry",
        Cavalry => "cavalry",
        /// Foot ("mounted") artillery, 12" (APSoF IV.B, IV.G).
        Artillery => "artillery",
        /// Horse artillery, 14" (APSoF IV.B, IV.G).
        HorseArtillery => "horse-artillery",
    }
);

impl Arm {
    pub fn is_artillery(self) -> bool {
        matches!(self, Arm::Artillery | Arm::HorseArtillery)
    }
}

named_enum!(
    /// Recognised formations (APSoF III.D, III.G). Artillery is limbered or
    /// unlimbered; infantry and cavalry use the others. Mounted/dismounted
    /// cavalry and lying down are separate flags on the unit, not formations.
    Formation, "formation", {
        Line => "line",
        Column => "column",
        Skirmish => "skirmish",
        CompanyColumn => "company-column",
        EnMasse => "en-masse",
        Limbered => "limbered",
        Unlimbered => "unlimbered",
    }
);

impl Formation {
    /// Whether `arm` may take this formation.
    pub fn allowed_for(self, arm: Arm) -> bool {
        let artillery_formation = matches!(self, Formation::Limbered | Formation::Unlimbered);
        arm.is_artillery() == artillery_formation
    }
}

named_enum!(
    /// Base morale classes (APSoF VI.B.1).
    MoraleClass, "morale class", {
        Elite => "elite",
        Regular => "regular",
        Poor => "poor",
        Garrison => "garrison",
        Militia => "militia",
        Rabble => "rabble",
    }
);

impl MoraleClass {
    /// Base morale value of the class (APSoF VI.B.1 i–vi).
    pub fn base_morale(self) -> u8 {
        match self {
            MoraleClass::Elite => 6,
            MoraleClass::Regular => 5,
            MoraleClass::Poor => 4,
            MoraleClass::Garrison => 3,
            MoraleClass::Militia => 2,
            MoraleClass::Rabble => 1,
        }
    }
}

named_enum!(
    /// An officer's APSoF quality rating, used by rally (VI.E) and replacement
    /// after a hit (V.H).
    OfficerRating, "officer rating", {
        Hero => "hero",
        Good => "good",
        Normal => "normal",
        Poor => "poor",
        Bad => "bad",
    }
);

named_enum!(
    /// Level of command (APSoF II.F).
    OfficerLevel, "officer level", {
        Brigade => "brigade",
        Division => "division",
        Corps => "corps",
        Army => "army",
    }
);

named_enum!(
    /// SFRM command class, which with the level gives command ability
    /// (SFRM Table 2).
    CommandClass, "command class", {
        Inferior => "inferior",
        Regular => "regular",
        Superior => "superior",
    }
);

named_enum!(
    /// Kinds of area terrain (polygons) with their own movement and sight
    /// effects (APSoF IV.G, V.C.3).
    AreaKind, "area terrain", {
        Woods => "woods",
        DenseWoods => "dense-woods",
        Swamp => "swamp",
        Rough => "rough",
        SteepHill => "steep-hill",
        Town => "town",
        /// Felled trees, sharpened and laid as an obstacle (APSoF VIII.D,
        /// option `abatis`).
        Abatis => "abatis",
    }
);

named_enum!(
    /// An obstacle a unit can work on: a path cleared through abatis
    /// (APSoF VIII.D), a ditch or moat filled in (APSoF VIII.E).
    Obstacle, "obstacle", {
        Abatis => "abatis",
        Moat => "moat",
    }
);

impl Obstacle {
    /// The order for the work, as receipts and the archive write it back.
    pub fn order_words(self) -> &'static str {
        match self {
            Obstacle::Abatis => "clear a path through the abatis",
            Obstacle::Moat => "fill in the ditch",
        }
    }
}

named_enum!(
    /// Work with pontoon boats (APSoF IV.E.2): unloading them from their
    /// wagons ("They take four turns to unload from wagons"), and crossing
    /// a stream in them ("Infantry may cross bodies of water in pontoon
    /// boats").
    PontoonTask, "pontoon task", {
        Unload => "unload",
        Cross => "cross",
    }
);

impl PontoonTask {
    /// The order, as receipts and the archive write it back.
    pub fn order_words(self) -> &'static str {
        match self {
            PontoonTask::Unload => "unload the pontoons",
            PontoonTask::Cross => "cross by pontoon",
        }
    }
}

named_enum!(
    /// Kinds of linear terrain (polylines) (APSoF IV.G, IV.E).
    LineKind, "linear terrain", {
        Road => "road",
        /// A wood fence: worm (snake-rail), post-and-rail or board
        /// (APSoF IV.G "Fence"; V.B "Wood Fence", +1).
        Fence => "fence",
        /// A field wall of stone, low enough to cross (APSoF IV.G "Wall";
        /// protects as hasty works, +3: docs/rulings.md).
        Wall => "wall",
        Stream => "stream",
        /// A moat or ditch (APSoF VIII.E, option `moats`).
        Moat => "moat",
        /// A high wall (APSoF V.B "High Wall", +3; moved over as a wall,
        /// IV.G).
        HighWall => "high-wall",
        /// Hasty works: breastworks of rails, logs and earth (APSoF V.B
        /// "Hasty Works", +3; crossed as a wall, IV.G).
        HastyWorks => "hasty-works",
        /// Entrenchments: dug trenches with parapets (APSoF V.B
        /// "Entrenchments", +4; crossed as a wall, IV.G).
        Entrenchments => "entrenchments",
    }
);

impl LineKind {
    /// The other names a scenario may give a kind: the wood fences and stone
    /// walls of the period by their common names.
    pub const ALIASES: &'static [(&'static str, LineKind)] = &[
        ("worm-fence", LineKind::Fence),
        ("snake-fence", LineKind::Fence),
        ("rail-fence", LineKind::Fence),
        ("wood-fence", LineKind::Fence),
        ("board-fence", LineKind::Fence),
        ("stone-wall", LineKind::Wall),
        ("low-wall", LineKind::Wall),
        ("breastworks", LineKind::HastyWorks),
        ("trenches", LineKind::Entrenchments),
    ];

    /// The kind for a scenario's name, its aliases included.
    pub fn parse_with_aliases(s: &str) -> Option<LineKind> {
        let wanted = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.as_str() == wanted)
            .or_else(|| {
                Self::ALIASES
                    .iter()
                    .find(|(n, _)| *n == wanted)
                    .map(|(_, k)| *k)
            })
    }

    /// Fences, walls and works: they hide a unit behind them (APSoF
    /// V.C.3) and protect it from fire (V.B table).
    pub fn is_cover(self) -> bool {
        matches!(
            self,
            LineKind::Fence
                | LineKind::Wall
                | LineKind::HighWall
                | LineKind::HastyWorks
                | LineKind::Entrenchments
        )
    }
}

/// A perilous situation of APSoF V.G, named by its clause: the turn
/// engine names every one it finds in a fire's working, and the umpire's
/// calculator takes them by name (`calc fire --perilous rear`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PerilousClause {
    /// V.G.1.i, a flank, rear or surprise attack, which one not said.
    FlankRearOrSurprise,
    Flank,
    Rear,
    Surprise,
    /// V.G.1.ii.
    FirstFire,
    /// V.G.1.iii.
    Repeaters,
    /// V.G.1.iv, a ford, bridge or other obstacle.
    Crossing,
    /// V.G.1.iv in pontoon boats (IV.E.2).
    Pontoons,
    /// V.G.1.v, changing formation or not in normal battlefield formation.
    Formation,
    ChangingFormation,
    Broken,
    Limbered,
    /// V.G.2.
    Umpire,
}

impl PerilousClause {
    /// What the calculator takes: a clause's number or a word for it.
    pub const NAMES: &'static [(&'static str, PerilousClause)] = &[
        ("v.g.1.i", PerilousClause::FlankRearOrSurprise),
        ("flank", PerilousClause::Flank),
        ("rear", PerilousClause::Rear),
        ("surprise", PerilousClause::Surprise),
        ("v.g.1.ii", PerilousClause::FirstFire),
        ("first-fire", PerilousClause::FirstFire),
        ("v.g.1.iii", PerilousClause::Repeaters),
        ("repeaters", PerilousClause::Repeaters),
        ("v.g.1.iv", PerilousClause::Crossing),
        ("crossing", PerilousClause::Crossing),
        ("ford", PerilousClause::Crossing),
        ("pontoons", PerilousClause::Pontoons),
        ("v.g.1.v", PerilousClause::Formation),
        ("changing-formation", PerilousClause::ChangingFormation),
        ("broken", PerilousClause::Broken),
        ("limbered", PerilousClause::Limbered),
        ("v.g.2", PerilousClause::Umpire),
        ("umpire", PerilousClause::Umpire),
    ];

    /// The clause and what it says, as a fire's working names it.
    pub fn text(self) -> &'static str {
        match self {
            PerilousClause::FlankRearOrSurprise => "V.G.1.i flank, rear or surprise attack",
            PerilousClause::Flank => "V.G.1.i flank attack",
            PerilousClause::Rear => "V.G.1.i rear attack",
            PerilousClause::Surprise => "V.G.1.i surprise attack",
            PerilousClause::FirstFire => "V.G.1.ii first fire at troops never under fire",
            PerilousClause::Repeaters => {
                "V.G.1.iii first fire from repeaters at troops never under their fire"
            }
            PerilousClause::Crossing => "V.G.1.iv crossing a ford or abatis",
            PerilousClause::Pontoons => "V.G.1.iv crossing in pontoon boats",
            PerilousClause::Formation => {
                "V.G.1.v changing formation or not in normal battlefield formation"
            }
            PerilousClause::ChangingFormation => "V.G.1.v changing formation",
            PerilousClause::Broken => "V.G.1.v not in battlefield formation: broken, in flight",
            PerilousClause::Limbered => "V.G.1.v not in battlefield formation: limbered up",
            PerilousClause::Umpire => "V.G.2 declared by the umpire",
        }
    }
}

impl fmt::Display for PerilousClause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.text())
    }
}

impl FromStr for PerilousClause {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        let wanted = wanted.strip_prefix("apsof-").unwrap_or(&wanted);
        PerilousClause::NAMES
            .iter()
            .find(|(n, _)| *n == wanted)
            .map(|(_, c)| *c)
            .ok_or_else(|| UnknownName {
                what: "perilous situation (APSoF V.G)",
                given: s.to_string(),
                expected: PerilousClause::NAMES
                    .iter()
                    .map(|(n, _)| n.replace("v.g", "V.G"))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for w in Weapon::ALL {
            assert_eq!(w.as_str().parse::<Weapon>().unwrap(), *w);
        }
        assert_eq!(Weapon::ALL.len(), 21);
        assert_eq!(
            "Company Column".parse::<Formation>().unwrap(),
            Formation::CompanyColumn
        );
    }

    #[test]
    fn unknown_name_lists_the_choices() {
        let e = "musket".parse::<Weapon>().unwrap_err();
        assert!(e.to_string().contains("rifled-musket"));
    }

    #[test]
    fn base_morale_by_class() {
        assert_eq!(MoraleClass::Elite.base_morale(), 6);
        assert_eq!(MoraleClass::Rabble.base_morale(), 1);
    }
}
