//! SFRM "Army Costing System" limits on an order of battle, and "Scenario
//! Setup"'s points and entrenchment by kind of scenario: pure checks a
//! scenario check can report beside each side's Table 9 cost.

use super::nouns::{Arm, Gun, Quality, Rank, SfrmBattle, Side, SmallArm, Unit};
use serde::{Deserialize, Serialize};

/// One limit an order of battle breaks, with the section it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breach {
    pub side: Side,
    pub text: String,
    pub section: String,
}

const S_COSTING: &str = "SFRM Army Costing System";

/// SFRM "Army Costing System": elements a brigade may have, by arm
/// (infantry 2–10, cavalry 2–8) and quality (regular 3–8, inferior 4–9,
/// superior 2–7, green 5–10); both must hold.
pub fn brigade_size(cavalry: bool, quality: Option<Quality>) -> (u32, u32) {
    let (lo, hi) = if cavalry { (2, 8) } else { (2, 10) };
    let (qlo, qhi) = match quality {
        Some(Quality::Regular) => (3, 8),
        Some(Quality::Inferior) => (4, 9),
        Some(Quality::Superior) => (2, 7),
        None => (5, 10),
    };
    (lo.max(qlo), hi.min(qhi))
}

/// Command, supply and artillery elements: the general's own element, and
/// each artillery battalion and supply train directly under him.
fn csa_elements(b: &SfrmBattle, g: super::nouns::GeneralId) -> u32 {
    1 + b
        .units
        .iter()
        .filter(|u| u.division == Some(g) && matches!(u.arm, Arm::Artillery { .. } | Arm::Supply))
        .map(|u| u.elements)
        .sum::<u32>()
}

fn brigades_under(b: &SfrmBattle, g: super::nouns::GeneralId) -> Vec<&Unit> {
    b.units
        .iter()
        .filter(|u| u.division == Some(g) && u.is_infantry_or_cavalry())
        .collect()
}

/// SFRM "Army Costing System": every limit the order of battle in `b`
/// breaks, for a battle fought in `year`. Checked: brigade sizes; division
/// brigades and elements by side; command, supply and artillery elements
/// of divisions (4), corps (8) and armies (12), a corps's one extra brigade
/// and its two divisions, an army's four divisions or two corps; the
/// quarters of inferior and superior elements; Union muskets at most half
/// and Confederate muskets at least a quarter of infantry; Union repeaters
/// no more than general figures; 4 artillery elements per supply element
/// (6-pounders count half); Confederate 6-pounders at least half in
/// 1861–1862; Gatlings only Union, 1864–1865, one per corps or army.
pub fn check_organisation(b: &SfrmBattle, year: u16) -> Vec<Breach> {
    let mut out = Vec::new();
    for side in [Side::Union, Side::Confederate] {
        let mut breach = |text: String| {
            out.push(Breach {
                side,
                text,
                section: S_COSTING.into(),
            })
        };
        let units: Vec<&Unit> = b.units.iter().filter(|u| u.side == side).collect();
        for u in units.iter().filter(|u| u.is_infantry_or_cavalry()) {
            let cavalry = matches!(u.arm, Arm::Cavalry { .. });
            let (lo, hi) = brigade_size(cavalry, u.quality);
            if !(lo..=hi).contains(&u.elements) {
                breach(format!(
                    "{} has {} elements; a {} {} brigade has {lo} to {hi}",
                    u.name,
                    u.elements,
                    u.quality.map(Quality::name).unwrap_or("green"),
                    if cavalry { "cavalry" } else { "infantry" }
                ));
            }
        }
        let generals: Vec<_> = b.generals.iter().filter(|g| g.side == side).collect();
        for g in &generals {
            let brigades = brigades_under(b, g.id);
            let csa = csa_elements(b, g.id);
            let subs: Vec<_> = generals
                .iter()
                .filter(|x| x.superior == Some(g.id))
                .collect();
            let divisions = subs.iter().filter(|x| x.rank == Rank::Division).count();
            let corps = subs.iter().filter(|x| x.rank == Rank::Corps).count();
            match g.rank {
                Rank::Division => {
                    let (most, cap) = match side {
                        Side::Union => (4, 30),
                        Side::Confederate => (6, 60),
                    };
                    let n = brigades.len();
                    if !(2..=most).contains(&n) {
                        breach(format!(
                            "{}'s division has {n} brigades; a {} division has 2 to {most}",
                            g.name,
                            side.name()
                        ));
                    }
                    let elements: u32 = brigades.iter().map(|u| u.elements).sum();
                    if elements > cap {
                        breach(format!(
                            "{}'s division has {elements} infantry and cavalry elements; at most {cap}",
                            g.name
                        ));
                    }
                    if csa > 4 {
                        breach(format!(
                            "{}'s division has {csa} command, supply and artillery elements; at most 4",
                            g.name
                        ));
                    }
                }
                Rank::Corps => {
                    if divisions < 2 {
                        breach(format!(
                            "{}'s corps has {divisions} divisions; at least 2",
                            g.name
                        ));
                    }
                    if csa > 8 {
                        breach(format!(
                            "{}'s corps has {csa} command, supply and artillery elements of its own; at most 8",
                            g.name
                        ));
                    }
                    if brigades.len() > 1 {
                        breach(format!(
                            "{}'s corps has {} brigades of its own; at most 1",
                            g.name,
                            brigades.len()
                        ));
                    }
                }
                Rank::Army => {
                    if divisions < 4 && corps < 2 {
                        breach(format!(
                            "{}'s army has {divisions} divisions and {corps} corps; at least 4 divisions or 2 corps",
                            g.name
                        ));
                    }
                    if csa > 12 {
                        breach(format!(
                            "{}'s army has {csa} command, supply and artillery elements of its own; at most 12",
                            g.name
                        ));
                    }
                    // "1 additional division": counted with the divisions.
                }
            }
        }
        let foot_and_horse: Vec<&&Unit> = units
            .iter()
            .filter(|u| u.is_infantry_or_cavalry())
            .collect();
        let total: u32 = foot_and_horse.iter().map(|u| u.elements).sum();
        let of = |q: Quality| -> u32 {
            foot_and_horse
                .iter()
                .filter(|u| u.quality == Some(q))
                .map(|u| u.elements)
                .sum()
        };
        for q in [Quality::Inferior, Quality::Superior] {
            // n <= total / 4, in whole numbers: 4n <= total.
            if 4 * of(q) > total {
                breach(format!(
                    "{} of {total} infantry and cavalry elements are {}; at most a quarter",
                    of(q),
                    q.name()
                ));
            }
        }
        let infantry: Vec<&&Unit> = units
            .iter()
            .filter(|u| matches!(u.arm, Arm::Infantry { .. }))
            .collect();
        let inf_total: u32 = infantry.iter().map(|u| u.elements).sum();
        let muskets: u32 = infantry
            .iter()
            .filter(|u| {
                matches!(
                    u.arm,
                    Arm::Infantry {
                        weapon: SmallArm::Muskets
                    }
                )
            })
            .map(|u| u.elements)
            .sum();
        match side {
            Side::Union if 2 * muskets > inf_total => breach(format!(
                "{muskets} of {inf_total} Union infantry elements carry muskets; at most half"
            )),
            Side::Confederate if 4 * muskets < inf_total => breach(format!(
                "{muskets} of {inf_total} Confederate infantry elements carry muskets; at least a quarter"
            )),
            _ => {}
        }
        let repeaters: u32 = units
            .iter()
            .filter(|u| {
                matches!(
                    u.arm,
                    Arm::Infantry {
                        weapon: SmallArm::Repeaters
                    } | Arm::Cavalry {
                        weapon: SmallArm::Repeaters
                    }
                )
            })
            .map(|u| u.elements)
            .sum();
        let figures: u32 = generals.iter().map(|g| g.rank.figures()).sum();
        if repeaters > 0 && (side == Side::Confederate || repeaters > figures) {
            breach(match side {
                Side::Union => format!(
                    "{repeaters} Union elements carry repeaters or are sharpshooters; at most one per general figure ({figures})"
                ),
                Side::Confederate => {
                    "Confederate elements may not carry repeaters or be sharpshooters (Table 9 has no column for them)".into()
                }
            });
        }
        let guns: Vec<Gun> = units
            .iter()
            .filter_map(|u| match u.arm {
                Arm::Artillery { gun } => Some(gun),
                _ => None,
            })
            .collect();
        // Half elements, to count 6-pounders as a half.
        let halves: u32 = guns
            .iter()
            .map(|g| if *g == Gun::SixPounder { 1 } else { 2 })
            .sum();
        let supply: u32 = units
            .iter()
            .filter(|u| u.arm == Arm::Supply)
            .map(|u| u.elements)
            .sum();
        if halves > 2 * 4 * supply {
            breach(format!(
                "{} artillery elements (6-pounders as half) need {} supply elements, at 4 each; there are {supply}",
                f64::from(halves) / 2.0,
                halves.div_ceil(8)
            ));
        }
        let six = guns.iter().filter(|g| **g == Gun::SixPounder).count();
        if side == Side::Confederate && (1861..=1862).contains(&year) && 2 * six < guns.len() {
            breach(format!(
                "{six} of {} Confederate artillery elements are 6-pounders; in {year} at least half",
                guns.len()
            ));
        }
        let gatlings = guns.iter().filter(|g| **g == Gun::Gatling).count();
        if gatlings > 0 {
            let corps_and_armies = generals
                .iter()
                .filter(|g| matches!(g.rank, Rank::Corps | Rank::Army))
                .count();
            if side == Side::Confederate || !(1864..=1865).contains(&year) {
                breach(format!(
                    "Gatling guns are for the Union in 1864-1865 only; {} has {gatlings} in {year}",
                    side.name()
                ));
            } else if gatlings > corps_and_armies {
                breach(format!(
                    "{gatlings} Gatling elements; at most one per corps, army or army wing ({corps_and_armies})"
                ));
            }
        }
    }
    out
}

/// Non-historical scenarios ("Scenario Setup").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScenarioKind {
    MeetingEngagement,
    HastyDefence,
    PreparedDefence,
}

impl ScenarioKind {
    /// SFRM "Scenario Setup": the defender's points as a fraction of the
    /// attacker's (numerator, denominator): the same, two-thirds, a half.
    pub fn defender_share(self) -> (u32, u32) {
        match self {
            ScenarioKind::MeetingEngagement => (1, 1),
            ScenarioKind::HastyDefence => (2, 3),
            ScenarioKind::PreparedDefence => (1, 2),
        }
    }

    /// SFRM "Scenario Setup": levels of entrenchment the defender may
    /// start with: 1, 2, 3.
    pub fn defender_entrenchment(self) -> u8 {
        match self {
            ScenarioKind::MeetingEngagement => 1,
            ScenarioKind::HastyDefence => 2,
            ScenarioKind::PreparedDefence => 3,
        }
    }

    /// The defender's points for an attacker's, rounded down.
    pub fn defender_points(self, attacker: u32) -> u32 {
        let (n, d) = self.defender_share();
        attacker.saturating_mul(n) / d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sfrm_army_costing_brigade_sizes() {
        assert_eq!(brigade_size(false, Some(Quality::Regular)), (3, 8));
        assert_eq!(brigade_size(false, Some(Quality::Inferior)), (4, 9));
        assert_eq!(brigade_size(false, Some(Quality::Superior)), (2, 7));
        assert_eq!(brigade_size(false, None), (5, 10));
        // Cavalry is 2 to 8 whatever its quality allows.
        assert_eq!(brigade_size(true, Some(Quality::Inferior)), (4, 8));
        assert_eq!(brigade_size(true, None), (5, 8));
    }

    #[test]
    fn sfrm_scenario_setup_points_and_entrenchment() {
        assert_eq!(ScenarioKind::MeetingEngagement.defender_points(900), 900);
        assert_eq!(ScenarioKind::HastyDefence.defender_points(900), 600);
        assert_eq!(ScenarioKind::PreparedDefence.defender_points(900), 450);
        assert_eq!(ScenarioKind::PreparedDefence.defender_entrenchment(), 3);
        assert_eq!(ScenarioKind::HastyDefence.defender_entrenchment(), 2);
        assert_eq!(ScenarioKind::MeetingEngagement.defender_entrenchment(), 1);
    }
}
