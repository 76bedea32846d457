//! The SFRM map: fog (an unseen enemy's real name and position never
//! reach a side's map), the frame, the scale bar and the umpire's map.

use super::*;
use crate::rules::sfrm::battle::nouns::UnitId;
use crate::rules::sfrm::battle::view::tests::bull_run;
use crate::rules::sfrm::battle::view::{EnemyNaming, side_view};

fn union_map(b: &SfrmBattle, naming: &EnemyNaming) -> (SideView, String) {
    let v = side_view(b, &[], Side::Union, naming);
    let svg = side_map_svg(b, &v);
    (v, svg)
}

/// Every place an enemy piece could be drawn at `pos` on this frame: the
/// corners of its nominal footprint in each formation, and of its true
/// footprint.
fn drawn_points(f: &Frame, u: &Unit) -> Vec<String> {
    let kind = Kind::of(u.arm);
    let mut out: Vec<String> = [
        Formation::Line,
        Formation::MarchColumn,
        Formation::BattleColumn,
        Formation::Skirmish,
    ]
    .into_iter()
    .flat_map(|fm| nominal_footprint(kind, fm, u.pos, u.facing))
    .map(|p| f.pt(p))
    .collect();
    out.extend(
        own_piece(u, ENEMY, String::new(), String::new())
            .corners
            .map(|p| f.pt(p)),
    );
    out
}

/// SFRM "Firing Arc & Target Availability": the Union sees Evans (in the
/// open) and Cocke riding with him; the 33rd Virginia (behind woods),
/// Hampton's Legion (reverse slope), Jackson and Beauregard are hidden.
/// Neither their names nor their places are on the Union map, under
/// known identities too.
#[test]
fn sfrm_map_never_names_or_places_an_unseen_enemy() {
    let b = bull_run();
    for naming in [EnemyNaming::default(), EnemyNaming::known()] {
        let (v, svg) = union_map(&b, &naming);
        assert_eq!(v.enemy_units.len(), 1);
        for hidden in ["33rd Virginia", "Hampton", "Jackson", "Beauregard"] {
            assert!(!svg.contains(hidden), "the map names {hidden}");
        }
        // Exactly one enemy piece is drawn: Evans.
        assert_eq!(svg.matches(&format!("fill:{ENEMY}")).count(), 1, "{svg}");
        if naming.known {
            assert!(svg.contains("Evans&#39;s Brigade"));
            assert!(svg.contains("General Cocke"));
        } else {
            assert!(svg.contains("an enemy infantry brigade"));
            assert!(!svg.contains("Evans") && !svg.contains("Cocke"));
        }
    }
}

/// The side's map is the same document wherever its unseen enemies stand
/// and whatever they are called: nothing of them reaches it, not even the
/// table's extent.
#[test]
fn sfrm_map_is_the_same_whatever_an_unseen_enemy_does() {
    let b = bull_run();
    let (_, svg) = union_map(&b, &EnemyNaming::known());
    let mut moved = b.clone();
    let hampton = moved.unit_mut(UnitId(12)).unwrap();
    hampton.pos = Pos::new(34.0, 1.0);
    hampton.name = "Wade Hampton's Legion of South Carolina".into();
    hampton.formation = Formation::MarchColumn;
    let virginia = moved.unit_mut(UnitId(11)).unwrap();
    virginia.pos = Pos::new(1.0, 24.0);
    let (_, svg2) = union_map(&moved, &EnemyNaming::known());
    assert_eq!(svg, svg2);
    // And no drawn point of the hidden units, where they truly stand.
    let v = side_view(&b, &[], Side::Union, &EnemyNaming::known());
    let f = Frame::new(
        &b,
        v.own_units
            .iter()
            .map(|o| o.unit.pos)
            .chain(v.enemy_units.iter().map(|e| e.pos))
            .collect::<Vec<_>>(),
    );
    for id in [UnitId(11), UnitId(12)] {
        let u = b.unit(id).unwrap();
        for p in drawn_points(&f, u) {
            assert!(!svg.contains(&p), "{} drawn at {p}", u.name);
        }
    }
}

/// The umpire's map shows every unit in play by its real name with its
/// elements, and every general.
#[test]
fn sfrm_umpire_map_shows_everything() {
    let b = bull_run();
    let svg = umpire_map_svg(&b);
    for u in &b.units {
        let label = esc(&format!("{} ({})", u.name, u.elements));
        assert!(svg.contains(&label), "missing {label}");
    }
    for g in &b.generals {
        assert!(svg.contains(&format!("Gen. {}", g.name)), "{}", g.name);
    }
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
}

/// The viewBox is the table in inches (with the title and legend bands),
/// and the scale bar reads in yards at SFRM's 1" = 100 yd (Table 1).
#[test]
fn sfrm_map_view_box_in_inches_and_a_scale_in_yards() {
    let b = bull_run();
    let svg = umpire_map_svg(&b);
    let f = Frame::new(
        &b,
        b.units
            .iter()
            .map(|u| u.pos)
            .chain(b.generals.iter().map(|g| g.pos))
            .collect::<Vec<_>>(),
    );
    // Roads from -30 to 60 across, units and generals from -5 to 40 up.
    assert_eq!((f.min.x, f.max.x), (-30.0, 60.0));
    assert!(f.min.y <= -5.0 && f.max.y >= 40.0);
    assert!(svg.contains("viewBox=\"-32.400"), "{}", &svg[..300]);
    // A fifth of 90" is 1,800 yards: the bar is 2,000 yards, 20".
    assert!(svg.contains("2,000 yards (1 in = 100 yards)"));
    assert!(svg.contains(">N</text>"));
}

/// Routed pieces are crossed and labelled so; entrenched pieces carry
/// works and say so; titles carry turn and clock time.
#[test]
fn sfrm_map_shows_routed_entrenched_and_the_clock() {
    let mut b = bull_run();
    b.turn = 2;
    b.unit_mut(UnitId(1)).unwrap().routed = true;
    b.unit_mut(UnitId(2)).unwrap().entrenchment = 1;
    let (_, svg) = union_map(&b, &EnemyNaming::default());
    assert!(svg.contains("Sherman&#39;s Brigade (routed)"));
    assert!(svg.contains("Keyes&#39;s Brigade (entrenched)"));
    assert!(svg.contains(&format!("stroke=\"{WORKS}\"")));
    // Turn 2 of a battle starting at 10:00: 10:30 to 11:00.
    assert!(svg.contains("Union: after turn 2 (10:30 to 11:00)"));
    let mut start = bull_run();
    start.turn = 0;
    assert!(umpire_map_svg(&start).contains("Umpire: the field at 10:00, before turn 1"));
}

/// Labels never overlap one another.
#[test]
fn sfrm_map_labels_do_not_overlap() {
    let b = bull_run();
    let f = Frame::new(&b, b.units.iter().map(|u| u.pos).collect::<Vec<_>>());
    let wants = b
        .units
        .iter()
        .map(|u| Want {
            text: u.name.clone(),
            enemy: false,
            general: false,
            ink: OWN,
            anchor: Bx::around(&f, &own_piece(u, OWN, String::new(), String::new()).corners),
        })
        .collect();
    let placed = layout(&f, wants, &[]);
    assert_eq!(placed.len(), b.units.len());
    for (i, a) in placed.iter().enumerate() {
        for c in &placed[i + 1..] {
            assert!(!a.card.overlaps(&c.card), "{} over {}", a.text, c.text);
        }
    }
}

/// The places orders may name are written on the map where they are (the
/// briefing lists them by name); a place off the drawn field is left out.
#[test]
fn sfrm_map_writes_the_named_places() {
    let b = bull_run();
    let v = side_view(&b, &[], Side::Union, &EnemyNaming::default());
    let at = b
        .units
        .first()
        .map(|u| u.pos)
        .unwrap_or(Pos::new(10.0, 10.0));
    let places = vec![
        ("Henry House Hill".to_string(), at),
        ("Far Away Farm".to_string(), Pos::new(-5_000.0, -5_000.0)),
    ];
    let svg = side_map_svg_with_places(&b, &v, &places);
    assert!(svg.contains(">Henry House Hill</text>"), "no place name");
    assert!(!svg.contains("Far Away Farm"));
    let svg = umpire_map_svg_with_places(&b, &places);
    assert!(svg.contains(">Henry House Hill</text>"));
}
