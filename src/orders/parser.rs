//! Recursive descent over the tokens of one order (the text after
//! `<unit name>:`), producing the engine's [`Step`]s.
//!
//! Grammar (informally; `docs/orders.md` has it for players):
//!
//! ```text
//! order    := [follow] clause (sep [trigger] clause)* [trigger]
//! sep      := ";" | "," | "." | "then" | "and" | "and then"
//! trigger  := "on arrival" | "upon reaching [place]" | "when there" | ...
//! clause   := move | double-quick | retreat | attack | charge | form | face
//!           | fire | hold-fire | hold | lie-down | stand-up | limber
//!           | unlimber | mount | dismount | split | combine
//!           | ("clear" | "cut") [a path through] "the abatis" | "fill" [in] "the ditch"
//!           | ("unload" | "launch") "the pontoons" | "cross" [water] ("by" | "in") "pontoon"
//!           | ("at" | "in") place trigger          -- "in the cornfield upon arrival"
//!           | "to" place                            -- continues the last move
//! fire     := ("fire" | "open fire" | "shoot") (shares | [at target] [with units])
//!           | "combine" ["its"] "fire" [at target] with units [at target]   -- V.F.1
//!           | "split" ["its"] "fire" (":" shares | "between" target "and" target)  -- V.F.2
//! with     := "with" | "together with" | "along with"
//! units    := unit (("," | "and") unit)*        -- units the writer commands
//! shares   := share at target (("," | "and") share at target)*
//! share    := n ["castings"] | "half" | "the rest" | "the other half"
//! move     := verb (to place | via place | by road | in formation
//!           | at the double | firing | backwards | with bayonets)*
//! place    := "(" x "," y ")" | x "," y | n unit [compass] [of place]
//!           | compass n unit [of place]                 -- "NE 200 yds"
//!           | [n unit] rel (unit | place)               -- "100 yards in rear of ..."
//!           | ["the"] ["near"] "edge of" place | name
//! unit     := "yards" | "paces" | "rods" | "feet" | "inches" | '"'
//! rel      := "on the left of" | "on the right of" | "behind" | "in rear of"
//!           | "in front of" | "in support of" | "beside" | "next to" | ...
//! ```
//!
//! Each clause is small and its own function; the parser never panics and
//! every error carries the byte offset it refers to.

use super::context::{ParseContext, PlaceRef};
use super::lexer::{Tok, Token};
use super::names::{Candidate, Lookup, lookup_exact, lookup_typo, norm_word, suggest, token_words};
use crate::rules::iron_brigade::geometry::{self, normalize_deg};
use crate::rules::iron_brigade::kinds::{Arm, Formation};
use crate::rules::iron_brigade::orders::{
    Action, Direction, FirePart, FireShare, FireTarget, Gait, MoveOrder, OfficerMove, Step, Trigger,
};
use crate::rules::iron_brigade::state::{OfficerId, Pos, Unit, UnitId};

/// A parse error at a byte offset of the mail text.
#[derive(Debug, Clone, PartialEq)]
pub struct PErr {
    pub at: usize,
    pub message: String,
    pub suggestions: Vec<String>,
}

type PResult<T> = Result<T, PErr>;

/// Words that end a name written inline ("the Brawner farm in line").
const SOFT_STOPS: &[&str] = &[
    "in",
    "by",
    "via",
    "then",
    "and",
    "facing",
    "at",
    "with",
    "firing",
    "while",
    "until",
    "on",
    "upon",
    "when",
    "once",
    "to",
    "for",
    "double",
    "backwards",
    "through",
    "across",
    "along",
    "into",
    "toward",
    "towards",
    "together",
    "jointly",
];

/// Verbs a clause may start with; a misspelling one letter off a verb of
/// five letters or more is read as that verb ("advnace").
const VERBS: &[&str] = &[
    "advance", "march", "move", "go", "proceed", "head", "press", "push", "continue", "attack",
    "assault", "charge", "double", "run", "form", "deploy", "face", "facing", "turn", "wheel",
    "about", "fire", "firing", "open", "shoot", "hold", "cease", "halt", "stand", "stay", "wait",
    "remain", "stop", "lie", "lay", "get", "rise", "limber", "unlimber", "mount", "dismount",
    "retreat", "withdraw", "fall", "pull", "back", "split", "detach", "divide", "combine", "merge",
    "ride", "gallop", "return", "hurry", "change", "clear", "cut", "fill", "unload", "launch",
    "cross",
];

/// Verbs of the wider vocabulary (`vocabulary`) that may follow "to" in a
/// period sentence ("Battery B to engage the rebel battery").
const WIDER_VERBS: &[&str] = &[
    "rally",
    "await",
    "support",
    "reinforce",
    "relieve",
    "engage",
    "follow",
    "conform",
    "shift",
    "oblique",
    "sidestep",
    "shell",
    "bombard",
    "cannonade",
    "occupy",
    "seize",
    "secure",
    "reform",
    "extend",
    "dress",
    "refuse",
    "pour",
    "volley",
    "dislodge",
    "drive",
    "assail",
];

/// Phrases of politeness or colour skipped before a clause.
const PREAMBLES: &[&[&str]] = &[
    &["please"],
    // "The 5th, 27th and 33rd Virginia will each advance ...".
    &["each"],
    // "2nd Wis & 19th Ind: both regiments to fall back ...".
    &["both", "regiments"],
    &["both", "units"],
    &["both", "batteries"],
    &["both", "of", "them"],
    &["all", "regiments"],
    &["you", "will"],
    &["you", "are", "to"],
    &["have", "the", "men"],
    &["have", "your", "men"],
    &["have", "them"],
    &["use", "a", "strategy", "of"],
    &["order", "the", "men", "to"],
    &["i", "want", "you", "to"],
    &["immediately"],
    &["at", "once"],
];

/// Tails that colour a clause without changing it (APSoF I.C.2's examples:
/// "for the enemy's attack", "once fired upon", "with bayonets").
const TAILS: &[&[&str]] = &[
    &["for"],
    &["once"],
    &["as", "soon", "as"],
    &["until", "they"],
    &["until", "we"],
    &["until", "you"],
    &["when", "fired"],
    &["who"],
    &["which"],
    // "repair to General Gibbon to learn his wishes": the errand's purpose.
    &["to", "learn"],
    &["to", "receive"],
    &["to", "report"],
    &["to", "confer"],
    &["to", "consult"],
    // "..., keeping their alignment with the 2nd": colour (each moves as
    // ordered; to follow another's moves write 'conform to').
    &["keeping", "their", "alignment"],
    &["keeping", "its", "alignment"],
    &["keeping", "the", "alignment"],
    &["keeping", "alignment"],
    &["keeping", "dressed"],
    // "follow the 56th at such distance as will enable it to support".
    &["at", "such", "distance"],
    &["at", "such", "a", "distance"],
    &["at", "supporting", "distance"],
    &["at", "a", "supporting", "distance"],
    &["at", "a", "convenient", "distance"],
    // "..., where the rails will give the men some shelter".
    &["where", "the"],
    &["where", "they"],
    &["where", "he"],
    &["where", "it"],
    &["where", "we"],
    &["that", "comes"],
    &["that", "come"],
    &["when", "they"],
    &["when", "the", "enemy"],
    &["when", "within"],
    &["when", "in", "range"],
    &["once", "they"],
    &["should", "they"],
    &["if"],
    &["with", "bayonets"],
    &["with", "fixed"],
    &["with", "the", "bayonet"],
    &["in", "good", "order"],
];

/// An enemy described rather than named ("the enemy battery", "the
/// regiment to our front", "the reb battery in front of Stony Ridge"): the
/// kind, whether it must be in front, and a place it is nearest to.
#[derive(Debug, Clone, Copy)]
struct EnemyDescription {
    arm: Option<Arm>,
    front: bool,
    near: Option<Pos>,
    /// "on Stony Ridge", "in the orchard": the enemy must stand inside
    /// that place's outline.
    within: Option<PlaceRef>,
}

// ------------------------------------------------------------ player vocabulary: words (issue #15)

/// Colour after a complete order, kept as colour and shown as such in the
/// receipt: it does not change what the unit does.
const COLOUR: &[&[&str]] = &[
    // "fire C next turn": the steps before it take the turn.
    &["next", "turn"],
    &["as", "support"],
    &["as", "a", "support"],
    &["as", "supports"],
    &["on", "the", "colours"],
    &["on", "the", "colors"],
    &["on", "the", "colour"],
    &["on", "the", "color"],
    &["on", "the", "flag"],
    &["at", "all", "costs"],
    &["at", "all", "cost"],
    &["at", "any", "cost"],
    &["whatever", "the", "cost"],
    &["to", "the", "last", "man"],
    &["to", "the", "last"],
    &["to", "the", "death"],
    &["no", "matter", "what"],
    &["come", "what", "may"],
    &["with", "vigour"],
    &["with", "vigor"],
    &["with", "energy"],
    &["with", "spirit"],
    &["with", "dash"],
    &["with", "determination"],
    &["with", "all", "speed"],
    &["at", "will"],
    &["vigorously"],
    &["smartly"],
    &["briskly"],
    &["steadily"],
    &["boldly"],
    &["stubbornly"],
    &["resolutely"],
    &["firmly"],
    &["promptly"],
    &["forthwith"],
    &["without", "delay"],
    &["without", "fail"],
    &["as", "best", "you", "can"],
    &["if", "possible"],
    &["until", "relieved"],
    &["until", "further", "orders"],
    &["until", "ordered", "otherwise"],
    &["till", "relieved"],
    &["in", "good", "order"],
    // "unlimber where you stand": here, as the order already means.
    &["where", "you", "stand"],
    &["where", "you", "are"],
    &["where", "they", "stand"],
    &["where", "it", "stands"],
    &["on", "the", "spot"],
    &["till", "further", "orders"],
    &["at", "once"],
    &["at", "all", "hazards"],
    &["slowly"],
    &["by", "battalion"],
    &["by", "company"],
    &["by", "companies"],
    &["by", "file"],
    &["by", "rank"],
    &["by", "ranks"],
    &["by", "volleys"],
    &["carefully"],
    &["cautiously"],
    &["quietly"],
    &["deliberately"],
    &["by", "the", "left", "flank"],
    &["by", "the", "right", "flank"],
    &["by", "the", "flank"],
    &["keep", "your", "heads", "down"],
    &["keep", "their", "heads", "down"],
    &["keep", "down"],
    &["keep", "low"],
    &["give", "them", "the", "bayonet"],
    &["give", "them", "cold", "steel"],
    &["give", "them", "the", "steel"],
    &["in", "the", "open"],
    &["on", "the", "run"],
    &["against", "all", "comers"],
    &["against", "all", "odds"],
    &["with", "a", "yell"],
    &["with", "a", "rebel", "yell"],
    &["with", "a", "cheer"],
    &["with", "a", "shout"],
    &["with", "a", "hurrah"],
    &["with", "a", "will"],
    &["cheering"],
    &["aim", "low"],
    &["aim", "high"],
    &["aim", "well"],
    &["aim", "carefully"],
    &["aim", "steady"],
    &["when", "ready"],
    &["at", "every", "hazard"],
    &["at", "every", "cost"],
    &["quick", "as", "you", "can"],
    &["as", "quick", "as", "you", "can"],
    &["quickly", "as", "you", "can"],
    &["fast", "as", "you", "can"],
    &["do", "not", "give", "an", "inch"],
    &["dont", "give", "an", "inch"],
    &["don't", "give", "an", "inch"],
    &["not", "an", "inch"],
    &["give", "no", "ground"],
    &["do", "not", "give", "ground"],
    &["do", "not", "yield"],
    &["no", "retreat"],
    &["and", "keep", "firing"],
    &["keep", "firing"],
    &["keep", "it", "hot"],
    &["immediately"],
    &["keep", "it", "up"],
    &["keep", "at", "it"],
    &["as", "rapidly", "as", "possible"],
    &["as", "rapidly", "as", "you", "can"],
    &["as", "fast", "as", "possible"],
    &["as", "fast", "as", "you", "can"],
    &["as", "quickly", "as", "possible"],
    &["as", "quickly", "as", "you", "can"],
    &["as", "hot", "as", "you", "can"],
    &["rapidly"],
    &["quickly"],
    &["boys"],
    &["men"],
    &["lads"],
    &["my", "boys"],
    &["my", "lads"],
    &["sir"],
    &["and", "give", "them", "hell"],
    &["give", "them", "hell"],
    &["and", "drive", "them"],
    &["drive", "them"],
    &["god", "willing"],
    &["if", "you", "can"],
    &["with", "all", "haste"],
    &["in", "haste"],
    &["asap"],
    &["please"],
    &["without", "a", "moment's", "delay"],
    &["without", "a", "moments", "delay"],
    &["without", "a", "moment", "of", "delay"],
    &["without", "loss", "of", "time"],
    &["from", "where", "you", "are"],
    &["from", "where", "you", "stand"],
    &["from", "where", "it", "is"],
    &["from", "where", "it", "stands"],
    &["from", "your", "present", "position"],
    &["from", "there"],
    &["from", "here"],
    &["in", "support"],
    &["in", "your", "rear"],
    &["in", "our", "rear"],
    &["to", "your", "rear"],
    &["to", "our", "rear"],
    &["in", "person"],
    &["keeping", "well", "closed", "up"],
    &["keeping", "well", "closed"],
    &["keeping", "closed", "up"],
    &["well", "closed", "up"],
];

/// The enemy called by a period nickname, with whether the nickname is for
/// the Confederate side (true) or the Union side (false).
const NICKNAMES: &[(&str, bool)] = &[
    ("reb", true),
    ("rebs", true),
    ("rebel", true),
    ("rebels", true),
    ("secesh", true),
    ("johnny", true),
    ("johnnies", true),
    ("johnnys", true),
    ("grayback", true),
    ("graybacks", true),
    ("greyback", true),
    ("greybacks", true),
    ("butternut", true),
    ("butternuts", true),
    ("confederate", true),
    ("confederates", true),
    ("confeds", true),
    ("yank", false),
    ("yanks", false),
    ("yankee", false),
    ("yankees", false),
    ("federal", false),
    ("federals", false),
    ("feds", false),
    ("bluebelly", false),
    ("bluebellies", false),
    ("bluecoat", false),
    ("bluecoats", false),
    ("union", false),
];

/// Where a unit stands on a friendly unit ("support", "close up on").
#[derive(Debug, Clone, Copy)]
enum Station {
    Left,
    Right,
    Behind,
}

/// A formation in the words of an error message.
fn formation_words(f: Formation) -> &'static str {
    match f {
        Formation::Line => "line",
        Formation::Column => "column",
        Formation::Skirmish => "skirmish order",
        Formation::CompanyColumn => "company column",
        Formation::EnMasse => "en masse",
        Formation::Limbered => "limbered order",
        Formation::Unlimbered => "unlimbered order",
    }
}

/// Abbreviations players write for verbs of the fixed list.
fn verb_alias(w: &str) -> Option<&'static str> {
    Some(match w {
        // "26th Ga - forward 3 in": forward as the verb is an advance.
        "adv" | "advc" | "fwd" | "forward" | "forwards" => "advance",
        "ret" | "retr" => "retreat",
        "w/d" | "wd" | "withdrw" => "withdraw",
        "mv" => "move",
        "retire" | "retires" => "retreat",
        "come" => "move",
        // "bear off to the north-east", "repair to the farm".
        "bear" | "bears" | "repair" | "repairs" => "move",
        "bring" => "move",
        "fir" | "fre" => "fire",
        // "26th ga dq 200 yds S": double quick.
        "dq" | "d.q" => "double",
        "hld" | "hol" => "hold",
        // "dislodge the enemy", "drive the rebels": an attack (a charge on
        // an enemy, APSoF VI.D.3; an advance on a place).
        "dislodge" | "dislodges" | "drive" | "drives" | "assail" | "assails" => "attack",
        _ => return None,
    })
}

/// Compass points, 16-wind, by their letters.
const COMPASS: &[(&str, f64)] = &[
    ("n", 0.0),
    ("nne", 22.5),
    ("ne", 45.0),
    ("ene", 67.5),
    ("e", 90.0),
    ("ese", 112.5),
    ("se", 135.0),
    ("sse", 157.5),
    ("s", 180.0),
    ("ssw", 202.5),
    ("sw", 225.0),
    ("wsw", 247.5),
    ("w", 270.0),
    ("wnw", 292.5),
    ("nw", 315.0),
    ("nnw", 337.5),
];

/// The letters of a compass word ("north" → "n", "northwest" → "nw",
/// "NW" → "nw"), or `None`.
fn compass_letters(w: &str) -> Option<String> {
    let w = w.trim_end_matches("ward").trim_end_matches("wards");
    let mut rest = w;
    let mut out = String::new();
    while !rest.is_empty() {
        let mut hit = false;
        for (full, l) in [("north", 'n'), ("south", 's'), ("east", 'e'), ("west", 'w')] {
            if let Some(r) = rest.strip_prefix(full) {
                out.push(l);
                rest = r;
                hit = true;
                break;
            }
        }
        if !hit {
            break;
        }
    }
    if rest.is_empty() && !out.is_empty() {
        return Some(out);
    }
    if w.len() <= 3 && !w.is_empty() && w.chars().all(|c| matches!(c, 'n' | 's' | 'e' | 'w')) {
        return Some(w.to_string());
    }
    None
}

/// A compass direction written as words or letters ("north-west", "NW",
/// "north north east", "westward") in degrees clockwise from north, or
/// `None`. Shared with the umpire's `SET ... facing` command so both read
/// directions the same way.
pub fn compass_degrees(text: &str) -> Option<f64> {
    let mut letters = String::new();
    for w in text
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|w| !w.is_empty())
    {
        letters.push_str(&compass_letters(&w.to_ascii_lowercase())?);
    }
    COMPASS.iter().find(|(n, _)| *n == letters).map(|(_, d)| *d)
}

/// What a move clause collected before it becomes an [`Action`].
#[derive(Debug, Default)]
struct MoveBuild {
    vias: Vec<Pos>,
    dests: Vec<Pos>,
    by_road: bool,
    formation: Option<Formation>,
    gait: Gait,
    fire: bool,
    backwards: bool,
    bayonets: bool,
    target: Option<UnitId>,
    quick: bool,
}

impl MoveBuild {
    fn waypoints(&self) -> Vec<Pos> {
        self.vias.iter().chain(&self.dests).copied().collect()
    }

    fn order(&self) -> MoveOrder {
        MoveOrder {
            waypoints: self.waypoints(),
            by_road: self.by_road,
            formation: self.formation,
            gait: self.gait,
            fire_while_moving: self.fire,
            backwards: self.backwards,
        }
    }
}

/// Parses one order for one unit or officer.
pub struct OrderParser<'c, 'a> {
    ctx: &'c ParseContext<'a>,
    text: &'c str,
    toks: &'c [Token],
    pos: usize,
    /// Byte offset just past the order, for errors at its end.
    end: usize,
    /// The unit being ordered (`None` for an officer's move).
    unit: Option<&'c Unit>,
    /// Where the ordered unit or officer stands now.
    at: Pos,
    facing: f64,
    /// How many of the order's steps have been looked at for a new front
    /// ([`OrderParser::sync_facing`]).
    facing_seen: usize,
    /// Places within places ("300 yards north of 5 inches east of ..."),
    /// bounded so no text can exhaust the stack.
    depth: u32,
    /// What the receipt must say beside the steps (issue #15): how a verb
    /// outside the fixed list was read, and colour kept as colour.
    notes: Vec<String>,
    /// Places issue #15 reads by the order's sense: inside a retreat
    /// ("fall back to the woods": the one to the rear).
    retreating: bool,
    /// Reading the place of "halt in the woods": inside its near edge.
    halting_in: bool,
    /// Places taken relative to a unit of his ("on the right of the 7th
    /// Wisconsin"), said in the receipt unless another note names it.
    relative_units: Vec<(String, String)>,
    /// Notes on places for the receipt, kept in the context when the order
    /// is read (`ParseContext::add_notes`), by byte offset.
    place_notes: Vec<(usize, String)>,
    /// "The edge of" an area chosen in a move, settled once the whole
    /// order is read (a later facing may choose another edge).
    edges: Vec<EdgeChoice>,
    /// The named place [`Self::place`] last read, if it read a name.
    last_place: Option<PlaceRef>,
    /// A reference already read ("on the 5th Va's right"), for the next
    /// [`Self::relative_reference`].
    preset_ref: Option<PlaceRef>,
}

impl<'c, 'a> OrderParser<'c, 'a> {
    pub fn new(
        ctx: &'c ParseContext<'a>,
        text: &'c str,
        toks: &'c [Token],
        end: usize,
        unit: Option<&'c Unit>,
        at: Pos,
    ) -> Self {
        OrderParser {
            ctx,
            text,
            toks,
            pos: 0,
            end,
            unit,
            at,
            facing: unit.map(|u| u.facing).unwrap_or(0.0),
            facing_seen: 0,
            depth: 0,
            notes: Vec::new(),
            retreating: false,
            halting_in: false,
            relative_units: Vec::new(),
            place_notes: Vec::new(),
            edges: Vec::new(),
            last_place: None,
            preset_ref: None,
        }
    }

    /// The receipt's notes gathered while parsing (see [`Self::vocabulary`]).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    // ------------------------------------------------------------ helpers

    fn peek(&self) -> Option<&'c Token> {
        self.toks.get(self.pos)
    }

    fn word_at(&self, k: usize) -> Option<&'c str> {
        self.toks.get(self.pos + k).and_then(|t| t.word())
    }

    fn at_word(&self, w: &str) -> bool {
        self.word_at(0) == Some(w)
    }

    fn at_words(&self, ws: &[&str]) -> bool {
        ws.iter()
            .enumerate()
            .all(|(k, w)| self.word_at(k) == Some(*w))
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.at_word(w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_words(&mut self, ws: &[&str]) -> bool {
        if self.at_words(ws) {
            self.pos += ws.len();
            true
        } else {
            false
        }
    }

    fn eat_any(&mut self, ws: &[&str]) -> Option<&'c str> {
        let w = self.word_at(0)?;
        if ws.contains(&w) {
            self.pos += 1;
            Some(w)
        } else {
            None
        }
    }

    fn at_punct(&self, c: char) -> bool {
        self.peek().is_some_and(|t| t.is_punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.at_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn here(&self) -> usize {
        self.peek().map(|t| t.start).unwrap_or(self.end)
    }

    /// How the current token reads in a message.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the order".to_string(),
            Some(t) => format!("'{}'", self.text.get(t.start..t.end).unwrap_or("?")),
        }
    }

    fn err(&self, message: impl Into<String>) -> PErr {
        PErr {
            at: self.here(),
            message: message.into(),
            suggestions: Vec::new(),
        }
    }

    fn expected(&self, what: &str) -> PErr {
        self.err(format!("expected {what}, found {}", self.found()))
    }

    fn number(&mut self) -> Option<f64> {
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Number(n)) if n.is_finite() => {
                let n = *n;
                self.pos += 1;
                Some(n)
            }
            _ => None,
        }
    }

    fn at_number(&self) -> bool {
        matches!(self.peek().map(|t| &t.tok), Some(Tok::Number(_)))
    }

    fn at_separator(&self) -> bool {
        self.at_punct(';')
            || self.at_punct(',')
            || self.at_punct('.')
            || self.at_punct('!')
            || self.at_punct('&')
            || self.at_word("then")
            || self.at_word("and")
            || self.at_word("next")
            || self.at_word("afterwards")
            || self.at_telegraph_stop()
    }

    /// "ADVANCE TO BRAWNER FENCE STOP FIRE AT WILL STOP": a telegraph's
    /// full stop, "STOP" in capitals after a word of the order (not
    /// "2nd Wis: STOP", the order to halt).
    fn at_telegraph_stop(&self) -> bool {
        self.peek()
            .is_some_and(|t| self.text.get(t.start..t.end) == Some("STOP"))
            && self
                .pos
                .checked_sub(1)
                .and_then(|k| self.toks.get(k))
                .is_some_and(|t| !matches!(t.tok, Tok::Punct(_)))
    }

    fn skip_preambles(&mut self) {
        loop {
            let before = self.pos;
            for p in PREAMBLES {
                if self.eat_words(p) {
                    break;
                }
            }
            if self.pos == before {
                self.skip_subject();
            }
            // "... the 21st North Carolina to advance ...".
            if self.pos == before
                && self.at_word("to")
                && self.word_at(1).is_some_and(|w| {
                    resolve_verb(w).is_some()
                        || verb_alias(w).is_some()
                        || WIDER_VERBS.contains(&w)
                        || (w == "make" && self.formation_word_at(2))
                })
            {
                self.pos += 1;
            }
            if self.pos == before {
                return;
            }
        }
    }

    /// The subject of a period sentence, up to its 'will' ("the regiment
    /// will advance", "Colonel Meredith will form line", "the 27th is to
    /// hold"): a few words that are not an order, then `will`, `shall`,
    /// `must`, `should`, `is to` or `are to`. The unit is the paragraph's
    /// head; the words before the verb change nothing.
    fn skip_subject(&mut self) {
        const MODALS: &[&str] = &["will", "shall", "must", "should", "is", "are"];
        for j in 0..5 {
            let Some(w) = self.word_at(j) else {
                return;
            };
            if MODALS.contains(&w) {
                let to = matches!(w, "is" | "are");
                if to && self.word_at(j + 1) != Some("to") {
                    return;
                }
                self.pos += j + 1 + usize::from(to);
                self.eat_any(&["now", "then", "at", "once", "each", "both", "all"]);
                return;
            }
            if j == 0 && (resolve_verb(w).is_some() || verb_alias(w).is_some()) {
                return;
            }
        }
    }

    /// Skip a colouring tail up to the next separator; the receipt shows
    /// it as colour.
    fn skip_tail(&mut self) {
        if !TAILS.iter().any(|t| self.at_words(t)) {
            return;
        }
        let start = self.here();
        let mut last = start;
        while let Some(t) = self.peek() {
            if self.at_separator() {
                break;
            }
            last = t.end;
            self.pos += 1;
        }
        self.note_colour(start, last);
    }

    /// The written text of a name phrase starting here (up to a stop word).
    fn phrase_text(&self) -> String {
        let mut k = self.pos;
        while let Some(t) = self.toks.get(k) {
            // A name does not run on to the next line.
            let new_line = k > self.pos
                && k.checked_sub(1)
                    .and_then(|j| self.toks.get(j))
                    .and_then(|p| self.text.get(p.end..t.start))
                    .is_some_and(|gap| gap.contains('\n'));
            let stop = new_line
                || match &t.tok {
                    Tok::Word(w) => k > self.pos && SOFT_STOPS.contains(&w.as_str()),
                    Tok::Number(_) => false,
                    Tok::Punct(c) => !matches!(c, '\'' | '&'),
                };
            if stop {
                break;
            }
            k += 1;
        }
        match (
            self.toks.get(self.pos),
            k.checked_sub(1).and_then(|l| self.toks.get(l)),
        ) {
            (Some(a), Some(b)) if k > self.pos => {
                self.text.get(a.start..b.end).unwrap_or("").to_string()
            }
            _ => String::new(),
        }
    }

    /// Match the longest run of tokens here against `cands`. On success
    /// the tokens are consumed; on failure nothing is.
    fn name<T: Clone + PartialEq>(&mut self, cands: &[Candidate<T>]) -> Lookup<T> {
        let start = self.pos;
        let mut limit = start;
        while let Some(t) = self.toks.get(limit) {
            if limit - start >= 10
                || matches!(t.tok, Tok::Punct(';' | ':' | '(' | ')' | '"' | '!' | '?'))
            {
                break;
            }
            limit += 1;
        }
        // Names as written first; then, forgiving one slip of the pen
        // ("the Brawnr farm"), which the receipt reads back.
        for exact in [true, false] {
            for end in (start + 1..=limit).rev() {
                // A name never ends in punctuation, nor in "the": the article
                // counts for nothing in a name, and taking it would swallow the
                // start of what follows ("at the 5th Tennessee, the rest at ...").
                if self
                    .toks
                    .get(end - 1)
                    .is_some_and(|t| matches!(t.tok, Tok::Punct(_)) || t.is_word("the"))
                {
                    continue;
                }
                let words = token_words(self.toks.get(start..end).unwrap_or_default());
                let found = if exact {
                    lookup_exact(&words, cands)
                } else {
                    lookup_typo(&words, cands)
                };
                match found {
                    Lookup::NotFound => continue,
                    Lookup::Found(t) => {
                        if !exact {
                            let written = self.written(
                                self.toks.get(start).map_or(0, |t| t.start),
                                self.toks.get(end - 1).map_or(0, |t| t.end),
                            );
                            if let Some(c) = cands.iter().find(|c| c.target == t) {
                                let note = format!("'{written}' read as {}", c.display);
                                self.note(note);
                            }
                        }
                        self.pos = end;
                        return Lookup::Found(t);
                    }
                    amb => return amb,
                }
            }
        }
        Lookup::NotFound
    }

    /// A name that must resolve, with a message naming `what` on failure.
    fn need_name<T: Clone + PartialEq>(
        &mut self,
        cands: &[Candidate<T>],
        not_found: &dyn Fn(&str) -> String,
    ) -> PResult<T> {
        let at = self.here();
        let written = self.phrase_text();
        match self.name(cands) {
            Lookup::Found(t) => Ok(t),
            Lookup::Ambiguous(names) => Err(PErr {
                at,
                message: format!("'{written}' could mean more than one; write the name in full"),
                suggestions: names,
            }),
            Lookup::NotFound => Err(PErr {
                at,
                message: if written.is_empty() {
                    not_found(&self.found())
                } else {
                    not_found(&format!("'{written}'"))
                },
                suggestions: suggest(&written, cands),
            }),
        }
    }

    // ------------------------------------------------------------ orders

    /// A whole unit order: whether it follows the pending orders, and its
    /// steps.
    pub fn unit_order(&mut self) -> PResult<(bool, Vec<Step>)> {
        let body_start = self.here();
        if self.keeps_previous() {
            // No new order: nothing is booked, the unit carries on with
            // the orders it has (APSoF I.B.1.i: only a new order replaces
            // them). An empty order written to follow the present ones.
            return Ok((true, Vec::new()));
        }
        let follows = self.follow_prefix();
        // "26th ga n 60th ga both dq 200 yds S": 'both', 'each', 'all'
        // after the names of the units the order is for.
        if self.at_any(0, &["both", "each", "all"]) && self.word_at(1).is_some_and(is_verb_word) {
            self.pos += 1;
        }
        let mut steps: Vec<Step> = Vec::new();
        let mut trigger = Trigger::Then;
        loop {
            let read_end = self
                .pos
                .checked_sub(1)
                .and_then(|k| self.toks.get(k))
                .map(|t| t.end)
                .filter(|&e| e > body_start)
                .unwrap_or(body_start);
            self.separators(&mut trigger);
            if self.at_end() {
                break;
            }
            self.leading_condition(body_start, read_end)?;
            let before = steps.len();
            self.clause(&mut steps)?;
            if trigger == Trigger::OnArrival
                && let Some(s) = steps.get_mut(before)
            {
                s.trigger = Trigger::OnArrival;
            }
            trigger = Trigger::Then;
            // "fall back to the turnpike if pressed": a retreat on a
            // condition the rules cannot wait for would be made at once.
            if matches!(steps.last().map(|s| &s.action), Some(Action::Retreat(_)))
                && (self.at_any(0, &["if", "should", "unless"])
                    || self.at_words(&["when", "pressed"])
                    || self.at_words(&["when", "attacked"]))
            {
                let start = self.here();
                let mut end = start;
                let mut k = self.pos;
                while let Some(t) = self.toks.get(k) {
                    if matches!(t.tok, Tok::Punct(';' | '.' | ',' | '!')) {
                        break;
                    }
                    end = t.end;
                    k += 1;
                }
                let cond = self.written(start, end);
                return Err(self.err(format!(
                    "'{cond}' is a condition Adjutant cannot wait for: the unit would fall back at once. Write 'hold' now and order the fall back in the turn it is needed, or leave out '{cond}' to fall back now"
                )));
            }
            // "take the orchard and hold it", "occupy the farm and hold":
            // the hold on arrival is already there; said once.
            if before >= 1
                && steps.len() == before + 1
                && matches!(steps.last().map(|s| &s.action), Some(Action::Hold))
                && matches!(steps.get(before - 1).map(|s| &s.action), Some(Action::Hold))
            {
                steps.pop();
            }
            self.bracketed_letter(&mut steps)?;
            self.fire_until(&steps);
            self.keep_firing(&mut steps);
            self.skip_tail();
            while self.colour() {
                self.skip_tail();
            }
            // A trigger written after its clause ("form line on arrival.").
            let save = self.pos;
            if self.trigger_phrase() {
                if self.at_end() || self.at_separator() {
                    if steps.len() > before
                        && let Some(s) = steps.last_mut()
                    {
                        s.trigger = Trigger::OnArrival;
                    }
                } else {
                    self.pos = save;
                }
            }
            if !steps.is_empty() {
                self.sign_off();
            }
            if !(self.at_end() || self.at_separator() || self.at_trigger() || self.after_dash()) {
                return Err(self.unread_rest(body_start));
            }
        }
        if steps.is_empty() {
            return Err(self.err(
                "expected an order after the unit's name, such as 'advance to ...', 'hold' or 'fire at will'",
            ));
        }
        for (name, text) in std::mem::take(&mut self.relative_units) {
            if !self.notes.iter().any(|n| n.contains(&name)) {
                self.note(format!("the place read as: {text}"));
            }
        }
        self.settle_edges(&mut steps);
        self.keep_notes();
        Ok((follows, steps))
    }

    /// "no change", "as before", "carry on", "as you were", "unchanged":
    /// the whole order says the unit keeps the orders it has. Said in the
    /// receipt ("no new order: keeps its present orders").
    fn keeps_previous(&mut self) -> bool {
        const KEEP: &[&[&str]] = &[
            &["no", "change", "of", "orders"],
            &["no", "change", "in", "orders"],
            &["no", "change"],
            &["no", "changes"],
            &["no", "new", "orders"],
            &["no", "new", "order"],
            &["no", "orders"],
            &["same", "as", "before"],
            &["same", "as", "last", "turn"],
            &["same", "orders"],
            &["as", "before"],
            &["as", "you", "were"],
            &["as", "ordered"],
            &["as", "last", "turn"],
            &["carry", "on", "as", "before"],
            &["carry", "on"],
            &["continue", "as", "before"],
            &["continue", "present", "orders"],
            &["keep", "present", "orders"],
            &["keep", "current", "orders"],
            &["unchanged"],
            &["ditto"],
        ];
        let save = self.pos;
        let Some(k) = KEEP.iter().find(|ws| self.at_words(ws)) else {
            return false;
        };
        self.pos += k.len();
        self.eat_any(&["otherwise", "please", "pls"]);
        self.eat_words(&["for", "now"]);
        self.eat_words(&["this", "turn"]);
        while self.at_punct('.') || self.at_punct('!') || self.at_punct(',') {
            self.pos += 1;
        }
        if self.at_end() {
            return true;
        }
        self.pos = save;
        false
    }

    /// "afterwards, ...", "when done, ...", "after your present orders, ...":
    /// the order is to follow the pending ones (APSoF I.B.1.i).
    fn follow_prefix(&mut self) -> bool {
        let prefixes: &[&[&str]] = &[
            &["after", "your", "present", "orders"],
            &["after", "your", "current", "orders"],
            &["after", "present", "orders"],
            &["after", "current", "orders"],
            &["after", "that"],
            &["when", "done"],
            &["when", "finished"],
            &["afterwards"],
            &["then"],
            &["also"],
        ];
        for p in prefixes {
            if self.eat_words(p) {
                self.eat_punct(',');
                return true;
            }
        }
        false
    }

    fn separators(&mut self, trigger: &mut Trigger) {
        loop {
            if self.at_separator() {
                self.pos += 1;
                continue;
            }
            if self.trigger_phrase() {
                *trigger = Trigger::OnArrival;
                continue;
            }
            return;
        }
    }

    fn at_trigger(&mut self) -> bool {
        let save = self.pos;
        let hit = self.trigger_phrase();
        self.pos = save;
        hit
    }

    /// "on arrival", "upon reaching [it | there | place]", "when there", ...
    fn trigger_phrase(&mut self) -> bool {
        let fixed: &[&[&str]] = &[
            &["on", "arrival", "there"],
            &["on", "arrival"],
            &["upon", "arrival"],
            &["on", "arriving"],
            &["upon", "arriving"],
            &["when", "there"],
            &["once", "there"],
            &["when", "you", "arrive", "there"],
            &["when", "you", "arrive"],
            &["when", "you", "get", "there"],
            &["when", "they", "arrive"],
            &["having", "arrived"],
            &["on", "getting", "there"],
            &["there"],
        ];
        for p in fixed {
            if self.eat_words(p) {
                return true;
            }
        }
        let save = self.pos;
        if self.eat_words(&["on", "reaching"]) || self.eat_words(&["upon", "reaching"]) {
            if self.eat_any(&["it", "there"]).is_none() {
                let after = self.pos;
                let from = self.at;
                if self.place(from, true).is_err() {
                    self.pos = after;
                }
            }
            return true;
        }
        self.pos = save;
        false
    }

    /// One clause; pushes its steps.
    fn clause(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        if !steps.is_empty() && (self.aside() || self.colour_sentence()) {
            return Ok(());
        }
        // "advance 12 inches SW, keep in column", "keep line": the move's
        // formation.
        if matches!(steps.last().map(|s| &s.action), Some(Action::Move(_)))
            && self.at_any(
                0,
                &["keep", "keeping", "stay", "staying", "remain", "remaining"],
            )
            && (self.at_word_k(1, "in") || self.formation_word_at(1))
        {
            let save = self.pos;
            self.pos += if self.at_word_k(1, "in") { 2 } else { 1 };
            if self.trailing_formation(steps)? {
                return Ok(());
            }
            self.pos = save;
        }
        self.skip_preambles();
        if TAILS.iter().any(|t| self.at_words(t)) {
            // A colouring phrase after a comma ("..., once fired upon").
            self.skip_tail();
            return Ok(());
        }
        if !steps.is_empty() && self.colour() {
            // "hold, at all costs".
            return Ok(());
        }
        // "pull back 100 yds N, too hot there", "theyre shaken": why,
        // kept as colour and said so.
        if !steps.is_empty()
            && self.at_any(
                0,
                &[
                    "too", "theyre", "they're", "its", "it's", "getting", "taking",
                ],
            )
            && !self.word_at(1).is_some_and(is_verb_word)
        {
            let start = self.here();
            while !self.at_end() && !self.at_separator() {
                self.pos += 1;
            }
            let end = self.last_end();
            self.note_colour(start, end);
            return Ok(());
        }

        let first = steps.len();
        let clause_at = self.here();
        self.clause_body(steps)?;
        self.check_formations(steps.get(first..).unwrap_or_default(), clause_at)
    }

    /// The clause itself, after preambles and colour.
    fn clause_body(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.sync_facing(steps);
        let Some(tok) = self.peek() else {
            return Err(self.expected("an order"));
        };
        // "19th Ind 4 in. north": a distance and a way with no verb is a
        // move; the receipt reads it back as 'advance'.
        if (matches!(tok.tok, Tok::Number(_)) || self.at_compass_distance())
            && !steps.iter().any(|s| matches!(s.action, Action::Move(_)))
        {
            let save = self.pos;
            if let Ok(m) = self.move_phrase(Gait::March, "advance")
                && self.require_destination(&m, "advance").is_ok()
            {
                steps.push(Step {
                    trigger: Trigger::Then,
                    action: Action::Move(m.order()),
                });
                self.note("a distance with no verb read as: advance");
                return Ok(());
            }
            self.pos = save;
        }
        // "7th Wis -> Douglass house", "6th Wis => fire on F": an arrow
        // after the name is 'advance to' when a place follows it.
        if tok.is_punct('>') || tok.is_punct('\u{2192}') {
            self.pos += 1;
            if self
                .word_at(0)
                .is_some_and(|w| is_verb_word(w) || WIDER_VERBS.contains(&w))
            {
                return self.clause_body(steps);
            }
            let from = self.at;
            let p = self.place(from, false)?;
            steps.push(Step {
                trigger: Trigger::Then,
                action: Self::move_to(p),
            });
            self.note("'->' read as: advance to");
            return Ok(());
        }
        let Some(raw) = tok.word() else {
            return Err(self.expected("an order such as 'advance to ...' or 'hold'"));
        };
        // "half on D, rest on E": shares of fire with the verb left out
        // (APSoF V.F.2).
        if matches!(raw, "half" | "rest") && self.share_at(0) && !self.at_word_k(1, "of") {
            let save = self.pos;
            match self.fire_parts() {
                Ok(parts) if parts.len() > 1 => {
                    steps.push(Step {
                        trigger: Trigger::Then,
                        action: Action::SplitFire { parts },
                    });
                    self.note("shares of castings with no verb read as: fire");
                    return Ok(());
                }
                _ => self.pos = save,
            }
        }
        // "advance upon the orchard and clear it of the enemy": what the
        // advance is for. Kept as colour and said so: the unit advances;
        // a charge is ordered with its target (APSoF VI.D.3).
        if matches!(raw, "clear" | "sweep" | "rid")
            && self.at_any(1, &["it", "them", "the", "that"])
            && (self.at_word_k(2, "of") || self.at_word_k(3, "of"))
            && matches!(steps.last().map(|s| &s.action), Some(Action::Move(_)))
        {
            let start = self.here();
            while !self.at_end() && !self.at_separator() {
                self.pos += 1;
            }
            let said = self.written(start, self.last_end());
            let example = self.ctx.example_enemies().0;
            self.note(format!(
                "'{said}' kept as colour: the unit advances there; to charge an enemy there, write 'charge' and its letter, as in 'charge {example}' (APSoF VI.D.3)"
            ));
            return Ok(());
        }
        // "make line", "make column": form it.
        if raw == "make" && self.formation_word_at(1) {
            self.pos += 1;
            return self.form(steps, "form");
        }
        // A word of the wider vocabulary written exactly ("dress on the
        // 4th") is that word, not a slip for a verb of the fixed list
        // ("press").
        if !VERBS.contains(&raw) && verb_alias(raw).is_none() && self.vocabulary(steps)? {
            return Ok(());
        }
        // "go into battery", "come into action": guns unlimber.
        // Also "bring your guns into battery", "put the pieces in battery",
        // and a place and a facing after it, as after 'unlimber'.
        let guns = if self.at_any(1, &["your", "the", "its", "his", "their"])
            && self.at_any(2, &["guns", "pieces", "battery", "section"])
        {
            2
        } else {
            usize::from(self.at_any(1, &["guns", "pieces"]))
        };
        if self.at_any(0, &["go", "come", "move", "get", "bring", "put", "run"])
            && self.at_any(1 + guns, &["into", "in"])
            && self.at_any(2 + guns, &["battery", "action"])
        {
            self.pos += 3 + guns;
            let there = self.unlimber_place()?;
            let facing = self.optional_facing()?;
            self.note("'into battery' read as: unlimber");
            if let Some(p) = there {
                Self::push(steps, Trigger::Then, Self::move_to(p));
                Self::push(steps, Trigger::OnArrival, Action::Unlimber { facing });
            } else {
                Self::push(steps, Trigger::Then, Action::Unlimber { facing });
            }
            return Ok(());
        }
        // "turn the guns on C", "bring the guns to bear on B": fire.
        if matches!(raw, "turn" | "bring" | "keep") && self.fire_words_ahead() {
            return self.aimed_fire(steps);
        }
        // "deploy skirmishers", "advance skirmishers to the front": the
        // skirmishers of a unit go out (not "deploy in skirmish order").
        if matches!(raw, "deploy" | "advance")
            && (self.at_any(1, &["skirmishers", "skirmisher"])
                || (self.at_any(1, &["a", "some", "the", "its", "our", "your"])
                    && self.at_any(2, &["skirmishers", "skirmisher", "company"])
                    && self.skirmishers_ahead()))
        {
            return self.throw_out_skirmishers(steps);
        }
        // "skirmishers into the orchard", "skirmishers out front": the
        // verb left out; skirmishers go out (and the rules want their
        // number, APSoF VII.E).
        if matches!(raw, "skirmishers" | "skirmisher")
            && self.at_any(
                1,
                &[
                    "out", "into", "to", "forward", "ahead", "in", "front", "towards",
                ],
            )
        {
            return self.throw_out_skirmishers(steps);
        }
        // "change front to the north": a change of facing.
        if raw == "change" && self.at_any(1, &["front", "face", "facing", "direction"]) {
            self.pos += 2;
            self.eat_any(&["to", "toward", "towards", "forward"]);
            // "change front to face the woods".
            self.eat_any(&["face", "facing"]);
            if self.word_at(1).and_then(compass_letters).is_some() {
                self.eat_word("the");
            }
            let d = self.direction()?;
            self.track_facing(&d);
            Self::push(steps, Trigger::Then, Action::Face(d));
            return Ok(());
        }
        let verb = resolve_verb(raw).or_else(|| verb_alias(raw).map(str::to_string));
        let push = |steps: &mut Vec<Step>, action: Action| {
            steps.push(Step {
                trigger: Trigger::Then,
                action,
            })
        };
        match verb.as_deref() {
            Some(
                "advance" | "march" | "move" | "go" | "proceed" | "head" | "press" | "push"
                | "continue",
            ) if {
                // "move forward to support the 60th": the purpose is the
                // order.
                let mut k = 1;
                if self.at_any(k, &["forward", "forwards", "up", "out", "on"]) {
                    k += 1;
                }
                self.at_any(k, &["to", "and"])
                    && self.at_any(
                        k + 1,
                        &["support", "reinforce", "engage", "follow", "relieve"],
                    )
            } =>
            {
                self.pos += 1;
                self.eat_any(&["forward", "forwards", "up", "out", "on"]);
                self.eat_any(&["to", "and"]);
                if !self.vocabulary(steps)? {
                    return Err(self.expected("an order after 'to'"));
                }
            }
            Some(
                "advance" | "march" | "move" | "go" | "proceed" | "head" | "press" | "push"
                | "continue",
            ) if {
                // "advance and form line upon the left of the 19th", "move
                // up and lie in rear of the fence": the move is the next
                // order's own (it goes there first).
                let k = 1 + usize::from(self.at_any(1, &["up", "forward", "on", "out"]));
                self.at_word_k(k, "and")
                    && self.at_any(
                        k + 1,
                        &["form", "deploy", "lie", "take", "occupy", "line", "extend"],
                    )
            } =>
            {
                let start = self.here();
                self.pos += 1;
                self.eat_any(&["up", "forward", "on", "out"]);
                let said = self.written(start, self.last_end());
                self.eat_word("and");
                self.note(format!(
                    "'{said} and' read with the order after it, which says where to go"
                ));
                return self.clause_body(steps);
            }
            Some(
                "advance" | "march" | "move" | "go" | "proceed" | "head" | "press" | "push"
                | "continue",
            ) => {
                self.pos += 1;
                let forward = matches!(raw, "fwd" | "forward" | "forwards")
                    || self.at_any(0, &["forward", "forwards", "fwd", "ahead"]);
                let mut m = self.move_phrase(Gait::March, raw)?;
                // "6th & 7th Wis: fwd in line": forward with no place is
                // straight ahead, one full move (APSoF IV.G), said so.
                if forward
                    && m.dests.is_empty()
                    && m.vias.is_empty()
                    && (self.at_end() || self.at_separator())
                    && let Some(u) = self.unit
                {
                    let len = crate::rules::iron_brigade::movement::base_allowance(u, false, false);
                    let (dx, dy) = geometry::facing_vector(self.facing);
                    let p = Pos::new(self.at.x + dx * len, self.at.y + dy * len);
                    m.dests.push(p);
                    self.note(format!(
                        "'{raw}' with no place read as: advance straight ahead one full move, {}\" (APSoF IV.G), to {}",
                        show_num(len),
                        show_pos(p)
                    ));
                }
                self.require_destination(&m, raw)?;
                push(steps, Action::Move(m.order()));
            }
            Some("double") => {
                self.pos += 1;
                self.eat_any(&["quick", "time", "quickstep"]);
                let m = self.move_phrase(Gait::DoubleQuick, "double quick")?;
                self.require_destination(&m, "double quick")?;
                push(steps, Action::Move(m.order()));
            }
            Some("run") => {
                self.pos += 1;
                let m = self.move_phrase(Gait::DoubleQuick, raw)?;
                self.require_destination(&m, raw)?;
                push(steps, Action::Move(m.order()));
            }
            Some("retreat" | "withdraw" | "fall" | "pull" | "back") => {
                self.pos += 1;
                self.eat_word("back");
                self.eat_word("up");
                let m = self.move_phrase_retreat(raw)?;
                push(steps, Action::Retreat(m.order()));
            }
            Some("attack" | "assault") => {
                self.pos += 1;
                self.attack(steps, raw)?;
            }
            Some("charge") => {
                self.pos += 1;
                self.charge(steps)?;
            }
            Some("form" | "deploy" | "change") => {
                self.pos += 1;
                self.form(steps, raw)?;
            }
            Some("face" | "facing" | "turn" | "wheel" | "about") => self.face(steps)?,
            Some("fire" | "firing" | "open" | "shoot") => self.fire(steps)?,
            Some("cease") => {
                self.pos += 1;
                self.eat_any(&["fire", "firing"]);
                push(steps, Action::HoldFire);
            }
            Some("hold" | "halt" | "stay" | "wait" | "remain" | "stop") => self.hold(steps)?,
            Some("stand") => {
                self.pos += 1;
                if self.eat_any(&["up", "to"]).is_some() {
                    push(steps, Action::StandUp);
                } else {
                    self.hold_rest(steps)?;
                }
            }
            Some("lie" | "lay") => {
                self.pos += 1;
                // "lie dn", "lie dwn": umpire shorthand. "lie in rear of the
                // fence", "lie behind the wall": go there and lie down.
                if self.eat_any(&["down", "dn", "dwn"]).is_none()
                    && !(self.at_relative() || self.at_any(0, &["in", "behind", "along"]))
                {
                    return Err(self.expected("'down' after 'lie'"));
                }
                // "lie down behind the fence", "lie down in the woods":
                // go there, then lie down.
                if let Some(p) = self.lying_place()? {
                    push(steps, Self::move_to(p));
                    steps.push(Step {
                        trigger: Trigger::OnArrival,
                        action: Action::LieDown,
                    });
                } else {
                    push(steps, Action::LieDown);
                }
            }
            Some("get") => {
                self.pos += 1;
                if self.eat_word("down") {
                    push(steps, Action::LieDown);
                } else if self.eat_word("up") {
                    push(steps, Action::StandUp);
                } else {
                    return Err(self.expected("'down' or 'up' after 'get'"));
                }
            }
            Some("rise") => {
                self.pos += 1;
                push(steps, Action::StandUp);
            }
            Some("limber") => {
                self.pos += 1;
                self.eat_word("up");
                // "limber his guns", "limber up the pieces".
                if self.at_any(0, &["his", "the", "its", "your", "their"])
                    && self.at_any(1, &["guns", "pieces", "battery", "section"])
                {
                    self.pos += 2;
                }
                push(steps, Action::Limber);
            }
            Some("unlimber") => {
                self.pos += 1;
                let there = self.unlimber_place()?;
                let facing = self.optional_facing()?;
                if let Some(p) = there {
                    push(steps, Self::move_to(p));
                    steps.push(Step {
                        trigger: Trigger::OnArrival,
                        action: Action::Unlimber { facing },
                    });
                } else {
                    push(steps, Action::Unlimber { facing });
                }
            }
            Some("mount") => {
                self.pos += 1;
                self.eat_word("up");
                push(steps, Action::Mount);
            }
            Some("dismount") => {
                self.pos += 1;
                push(steps, Action::Dismount);
            }
            Some("split" | "divide") if self.at_fire_noun(1) => self.split_fire(steps)?,
            Some("split" | "detach") => {
                self.pos += 1;
                self.split(steps)?;
            }
            Some("combine" | "merge") if self.at_fire_noun(1) => self.combine_fire(steps)?,
            Some("combine" | "merge") => {
                self.pos += 1;
                self.combine(steps)?;
            }
            Some("cut" | "block" | "bar")
                if self.at_any(1, &["it", "the", "off"])
                    && !self.at_any(2, &["abatis", "path", "way", "ditch", "wall", "fence"]) =>
            {
                // "advance to the turnpike and cut it": hold there, across
                // the road.
                let start = self.here();
                self.pos += 1;
                while !self.at_end() && !self.at_separator() {
                    self.pos += 1;
                }
                let said = self.written(start, self.last_end());
                push(steps, Action::Hold);
                self.note(format!("'{said}' read as: hold there"));
            }
            Some("clear" | "cut" | "fill") => self.obstacle_work(steps, raw)?,
            Some("unload" | "launch" | "cross") => self.pontoon_work(steps, raw)?,
            _ if raw == "to" || raw == "toward" || raw == "towards" => {
                // "advance to X, then to Y": another waypoint of the last move.
                self.pos += 1;
                let from = self.at;
                let p = self.place(from, false)?;
                match steps.last_mut().map(|s| &mut s.action) {
                    Some(Action::Move(m) | Action::Retreat(m)) => m.waypoints.push(p),
                    _ => {
                        return Err(PErr {
                            at: tok.start,
                            message: "'to' needs a verb; write 'advance to ...'".to_string(),
                            suggestions: Vec::new(),
                        });
                    }
                }
            }
            // "-> Douglass house, in column": the formation of the move.
            _ if raw == "in" && !steps.is_empty() && self.formation_word_at(1) && {
                self.pos += 1;
                self.trailing_formation(steps)? || {
                    self.pos -= 1;
                    false
                }
            } => {}
            _ if (raw == "in" || raw == "at") && !steps.is_empty() => self.arrival_place(steps)?,
            // "col, adv S 6in", "line, then advance": a formation alone
            // before the next step is formed first.
            _ if self.trailing_formation(steps)? => {}
            _ if self.vocabulary(steps)? => {}
            _ if !steps.is_empty() && self.colour_sentence() => {}
            _ => {
                return Err(PErr {
                    at: tok.start,
                    message: format!(
                        "{} is not an order Adjutant knows; begin with a verb such as 'advance', 'hold', 'fire', 'charge', 'form', 'face', 'retreat', 'support', 'follow' or 'rally', as in {}",
                        self.found(),
                        self.order_examples()
                    ),
                    suggestions: Vec::new(),
                });
            }
        }
        Ok(())
    }

    /// "advance to the Brawner fence, line": a formation named alone after
    /// a step (APSoF III). After a move that names none it is the move's
    /// formation (taken before moving, as "advance in line to ..."); else
    /// the unit forms it there, with any facing written after it. Whether
    /// it was one (nothing is eaten otherwise).
    fn trailing_formation(&mut self, steps: &mut Vec<Step>) -> PResult<bool> {
        let save = self.pos;
        let Some(formation) = self.formation() else {
            self.pos = save;
            return Ok(false);
        };
        let facing = self.optional_facing()?;
        if !(self.at_end() || self.at_separator()) {
            self.pos = save;
            return Ok(false);
        }
        if facing.is_none()
            && let Some(Step {
                action: Action::Move(m),
                ..
            }) = steps.last_mut()
            && m.formation.is_none()
        {
            m.formation = Some(formation);
            return Ok(true);
        }
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Form { formation, facing },
        });
        Ok(true)
    }

    /// Two orders for the unit being ordered, from the scenario being
    /// played: a move to one of its places and a fire at an enemy his side
    /// sees (or at will).
    fn order_examples(&self) -> String {
        let unit = self
            .unit
            .map(|u| self.ctx.call_unit(u.id))
            .or_else(|| self.ctx.example_unit())
            .unwrap_or_else(|| "2nd Wisconsin".to_string());
        let place = self
            .ctx
            .example_place()
            .unwrap_or_else(|| "(34, 12)".to_string());
        let target = if self.ctx.visible_enemies.is_empty() {
            "will".to_string()
        } else {
            self.ctx.example_enemies().0
        };
        format!("'{unit}: advance to {place}' or '{unit}: hold; then fire at {target}'")
    }

    /// The error for words left after a complete order: what was read,
    /// what was not, and how to write it.
    fn unread_rest(&self, body_start: usize) -> PErr {
        let at = self.here();
        let mut k = self.pos;
        let mut end = at;
        while let Some(t) = self.toks.get(k) {
            if k > self.pos
                && (matches!(t.tok, Tok::Punct(';' | ',' | '.' | '!' | '&'))
                    || t.is_word("then")
                    || t.is_word("and"))
            {
                break;
            }
            end = t.end;
            k += 1;
            if k - self.pos >= 8 {
                break;
            }
        }
        let rest = self.written(at, end);
        let read = self.written(body_start, self.last_end());
        let unit = self
            .unit
            .map(|u| self.ctx.call_unit(u.id))
            .unwrap_or_else(|| "2nd Wisconsin".to_string());
        let then = if read.contains("hold") {
            "then fire at will"
        } else {
            "then hold"
        };
        // "hold the fence until the Yankees are within 50 yards, then
        // charge": a condition. Orders are carried out as written from the
        // turn they take effect (APSoF I.C.1); nothing waits on an event.
        if self.at_any(
            0,
            &["until", "till", "if", "when", "unless", "once", "whenever"],
        ) {
            return self.err(format!(
                "'{rest}' is a condition Adjutant cannot wait for: an order is carried out as written from the turn it takes effect. Write '{unit}: {read}' now and send what should follow in the turn it is needed, or leave out '{rest}'"
            ));
        }
        self.err(format!(
            "'{rest}' after '{read}' is not understood, so this order is not taken; end the order before it, or give it as another order after ';' or 'then', as in '{unit}: {read}; {then}'"
        ))
    }

    /// "fire on the Yankee battery (C)", "pour it into them (B)": a
    /// report letter in brackets after a fire or charge names its target,
    /// whatever the words before it described. A letter the side does not
    /// see now is refused as a target is.
    fn bracketed_letter(&mut self, steps: &mut [Step]) -> PResult<()> {
        // "(C)", ", marked A", "(marked A)", "designated B".
        const MARKS: &[&str] = &["marked", "designated", "labelled", "labeled", "lettered"];
        let mut k = self.pos;
        let open = self.toks.get(k).is_some_and(|t| t.is_punct('('));
        let comma_marked = self.toks.get(k).is_some_and(|t| t.is_punct(','))
            && self
                .toks
                .get(k + 1)
                .is_some_and(|t| MARKS.iter().any(|m| t.is_word(m)));
        if open || comma_marked {
            k += 1;
        }
        let marked = self
            .toks
            .get(k)
            .is_some_and(|t| MARKS.iter().any(|m| t.is_word(m)));
        if marked {
            k += 1;
        }
        if !(open || marked) {
            return Ok(());
        }
        let close = usize::from(open);
        if open && !self.toks.get(k + 1).is_some_and(|t| t.is_punct(')')) {
            return Ok(());
        }
        let Some(t) = self.toks.get(k) else {
            return Ok(());
        };
        let written = self.text.get(t.start..t.end).unwrap_or_default();
        if written == "a" {
            return Ok(());
        }
        let Some(id) = self.ctx.enemy_names.by_designation(written) else {
            return Ok(());
        };
        let Some(step) = steps.last_mut() else {
            return Ok(());
        };
        // "advance upon the Yankee line in front of the farm, marked A":
        // toward that enemy (where it is if in sight, else last seen).
        if let Action::Move(m) | Action::Retreat(m) = &mut step.action {
            let save = self.pos;
            self.pos = k;
            let from = self.at;
            let place = self.place(from, false);
            self.pos = save;
            if let (Ok(p), Some(last)) = (place, m.waypoints.last_mut()) {
                *last = p;
                self.pos = k + 1 + close;
                let letter = written.to_uppercase();
                self.note(format!(
                    "'{letter}' read as: toward enemy {letter}, where your side sees it (or last saw it), ({}, {})",
                    (p.x * 10.0).round() / 10.0,
                    (p.y * 10.0).round() / 10.0
                ));
            }
            return Ok(());
        }
        let targets = matches!(
            step.action,
            Action::Fire(_) | Action::FireWith { .. } | Action::Charge { .. }
        );
        if !targets {
            return Ok(());
        }
        if !self.ctx.visible_enemies.contains(&id) {
            self.pos = k;
            return Err(self.err(format!(
                "enemy {written} is not in sight now; fire at an enemy your report shows in sight, or 'at will'"
            )));
        }
        match &mut step.action {
            Action::Fire(target) | Action::FireWith { target, .. } => {
                *target = FireTarget::Unit(id);
            }
            Action::Charge { target, to, .. } => {
                *target = Some(id);
                *to = None;
            }
            _ => {}
        }
        self.pos = k + 1 + close;
        Ok(())
    }

    /// "fire on the battery til it is silenced", "keep firing until they
    /// break": fire goes on each turn until other orders come (APSoF V), so
    /// the condition after a fire changes nothing; kept as colour.
    fn fire_until(&mut self, steps: &[Step]) {
        let firing = steps.last().is_some_and(|s| {
            matches!(
                s.action,
                Action::Fire(_) | Action::FireWith { .. } | Action::SplitFire { .. }
            )
        });
        if !firing || !self.at_any(0, &["until", "til", "till", "untill"]) {
            return;
        }
        let start = self.here();
        let mut end = start;
        while let Some(t) = self.peek() {
            let new_line = end > start
                && self
                    .text
                    .get(end..t.start)
                    .is_some_and(|g| g.contains('\n'));
            if self.at_separator() || t.is_word("then") || new_line {
                break;
            }
            end = t.end;
            self.pos += 1;
        }
        self.note_colour(start, end);
    }

    /// "retire by prolonge and keep firing": after an order that is not
    /// fire, "keep firing" asks for fire (at will, after the move: APSoF
    /// V, firing comes after movement); after a fire order it is colour.
    fn keep_firing(&mut self, steps: &mut Vec<Step>) {
        let firing = steps.last().is_some_and(|s| {
            matches!(
                s.action,
                Action::Fire(_)
                    | Action::FireWith { .. }
                    | Action::SplitFire { .. }
                    | Action::HoldFire
            )
        });
        if firing || steps.is_empty() {
            return;
        }
        let start = self.here();
        let save = self.pos;
        self.eat_word("and");
        if !(self.eat_words(&["keep", "firing"])
            || self.eat_words(&["continue", "firing"])
            || self.eat_words(&["keep", "up", "the", "fire"])
            || self.eat_words(&["keep", "up", "your", "fire"]))
        {
            self.pos = save;
            return;
        }
        let written = self.written(start, self.last_end());
        Self::push(steps, Trigger::Then, Action::Fire(FireTarget::AtWill));
        self.note(format!("'{written}' read as: then fire at will (APSoF V)"));
    }

    /// Whether a dash set off by spaces stands before this token ("hold -
    /// fire at will"): after a complete clause, a stop between steps (the
    /// lexer reads dashes as spaces).
    fn after_dash(&self) -> bool {
        let (Some(prev), Some(next)) = (
            self.pos.checked_sub(1).and_then(|k| self.toks.get(k)),
            self.peek(),
        ) else {
            return false;
        };
        self.text.get(prev.end..next.start).is_some_and(|gap| {
            [" - ", " \u{2013} ", " \u{2014} ", " -- "]
                .iter()
                .any(|d| gap.contains(d))
        })
    }

    /// "if the Georgians are hard pressed, go to their support": a
    /// condition written before the order it governs. Orders are carried
    /// out as written from the turn they take effect (APSoF I.C.1) and
    /// nothing waits on an event, so the order after it would be carried
    /// out at once: refused, saying what to write now and what to send
    /// later. Fire is the exception ("when they come in range, fire"): a
    /// unit fires only at enemies it sees in range anyway (I.B.4.i.b), so
    /// the condition is colour there.
    fn leading_condition(&self, body_start: usize, read_end: usize) -> PResult<()> {
        let condition = self.at_any(0, &["if", "should", "unless", "whenever", "when"])
            || self.at_words(&["in", "case"])
            || self.at_words(&["in", "the", "event"]);
        if !condition {
            return Ok(());
        }
        // The condition runs to the next comma; an order must follow it.
        // A line break ends a sentence too (one order a line).
        let new_line = |k: usize| {
            k.checked_sub(1)
                .and_then(|j| self.toks.get(j))
                .zip(self.toks.get(k))
                .and_then(|(a, b)| self.text.get(a.end..b.start))
                .is_some_and(|gap| gap.contains('\n'))
        };
        let mut k = self.pos;
        let mut end = self.here();
        while let Some(t) = self.toks.get(k) {
            if matches!(t.tok, Tok::Punct(',' | ';' | '.' | '!'))
                || t.is_word("then")
                || (k > self.pos && new_line(k))
            {
                break;
            }
            end = t.end;
            k += 1;
        }
        let after: Vec<&str> = (k + 1..k + 3)
            .filter_map(|j| self.toks.get(j).and_then(Token::word))
            .collect();
        let Some(&next) = after.first() else {
            return Ok(());
        };
        let fires = matches!(
            next,
            "fire" | "fires" | "open" | "volley" | "pour" | "give" | "engage" | "commence"
        );
        if fires || self.toks.get(k).is_none_or(|t| t.is_punct('.')) {
            return Ok(());
        }
        let cond = self.written(self.here(), end);
        let then_start = self.toks.get(k + 1).map(|t| t.start).unwrap_or(self.end);
        let mut then_end = then_start;
        let mut j = k + 1;
        while let Some(t) = self.toks.get(j) {
            if matches!(t.tok, Tok::Punct(';' | '.' | '!')) || (j > k + 1 && new_line(j)) {
                break;
            }
            then_end = t.end;
            j += 1;
        }
        let then = self.written(then_start, then_end);
        let unit = self
            .unit
            .map(|u| self.ctx.call_unit(u.id))
            .unwrap_or_else(|| "the unit".to_string());
        let read = self.written(body_start, read_end);
        let read = read.trim_end_matches([';', ',', '.']).trim();
        let now = if read.is_empty() {
            format!("'{unit}: hold' now")
        } else {
            format!("'{unit}: {read}' now")
        };
        Err(self.err(format!(
            "'{cond}' is a condition Adjutant cannot wait for: an order is carried out as written from the turn it takes effect, so '{then}' would be done at once. Write {now}, and send '{then}' in the turn it is needed"
        )))
    }

    fn require_destination(&self, m: &MoveBuild, verb: &str) -> PResult<()> {
        if m.dests.is_empty() && m.vias.is_empty() {
            let example = self
                .ctx
                .example_place()
                .unwrap_or_else(|| "(34, 12)".to_string());
            // "advance until in range of C": a move must have a place; the
            // rules cannot stop it on an event (APSoF I.C.1, IV).
            if self.at_any(0, &["until", "till", "if", "when", "unless"]) {
                return Err(self.err(format!(
                    "a move needs a place, and '{} ...' is a condition Adjutant cannot wait for; write where to go, as in '{verb} to {example}' or '{verb} toward B' (an enemy by its letter), and send the next order in the turn it is needed",
                    self.word_at(0).unwrap_or_default()
                )));
            }
            return Err(self.expected(&format!(
                "a place after '{verb}', such as 'to {example}', 'to (34, 12)', 'NE 200 yards' or 'behind {}'",
                self.ctx.example_unit().unwrap_or_else(|| "a unit".to_string())
            )));
        }
        Ok(())
    }

    /// "in the cornfield upon arrival" after a clause: the last step waits
    /// for arrival, and if that place is not where the unit is already
    /// going, it goes there first (APSoF I.C.2 example i).
    fn arrival_place(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        let from = self.at;
        let p = self.place(from, false)?;
        if !self.trigger_phrase() {
            return Err(self.expected("'upon arrival' after the place"));
        }
        let going_there = steps.iter().rev().find_map(|s| match &s.action {
            Action::Move(m) | Action::Retreat(m) => m.waypoints.last().copied(),
            _ => None,
        });
        if going_there.is_none_or(|g| g.distance(p) > 0.01) {
            let idx = steps.len().saturating_sub(1);
            steps.insert(
                idx,
                Step {
                    trigger: Trigger::Then,
                    action: Action::Move(MoveOrder {
                        waypoints: vec![p],
                        by_road: false,
                        formation: None,
                        gait: Gait::March,
                        fire_while_moving: false,
                        backwards: false,
                    }),
                },
            );
        }
        if let Some(last) = steps.last_mut() {
            last.trigger = Trigger::OnArrival;
        }
        Ok(())
    }

    /// "adv. to the farm", "ret. 3 inches": the dot of an abbreviated verb
    /// is no full stop.
    fn eat_abbrev_dot(&mut self) {
        let (Some(prev), Some(dot), Some(next)) = (
            self.pos.checked_sub(1).and_then(|k| self.toks.get(k)),
            self.toks.get(self.pos),
            self.toks.get(self.pos + 1),
        ) else {
            return;
        };
        if dot.is_punct('.')
            && prev.end == dot.start
            && prev.word().is_some_and(|w| verb_alias(w).is_some())
            && !matches!(next.tok, Tok::Punct(_))
        {
            self.pos += 1;
        }
    }

    /// The modifiers of a move, in any order.
    fn move_phrase(&mut self, gait: Gait, _verb: &str) -> PResult<MoveBuild> {
        self.eat_abbrev_dot();
        let mut m = MoveBuild {
            gait,
            ..MoveBuild::default()
        };
        if !self.at_words(&["on", "the"]) && !self.at_words(&["on", "enemy"]) {
            self.eat_any(&[
                "forward", "forwards", "fwd", "ahead", "out", "on", "off", "away",
            ]);
        }
        // "advance your regiment to ...", "move the men forward".
        if self.at_any(0, &["your", "the", "his", "my"])
            && self.at_any(
                1,
                &[
                    "regiment", "men", "command", "battery", "guns", "troops", "boys", "line",
                    "brigade",
                ],
            )
        {
            self.pos += 2;
            self.eat_any(&["forward", "forwards", "ahead", "out", "up"]);
        }
        // "move up 2 inches behind the fence".
        if self.at_word("up")
            && self
                .toks
                .get(self.pos + 1)
                .is_some_and(|t| matches!(t.tok, Tok::Number(_)))
        {
            self.pos += 1;
        }
        // "move over to the fence", "go across to the farm".
        if self.at_any(0, &["over", "across", "down", "along", "round", "around"])
            && self.at_any(1, &["to", "toward", "towards"])
        {
            self.pos += 1;
        }
        // "move up in support of ...", "come up on the left of ...".
        if self.at_word("up") && self.at_any(1, &["in", "on", "behind", "beside", "alongside"]) {
            self.pos += 1;
        }
        self.enemy_as_destination(&mut m)?;
        loop {
            if self.move_modifier(&mut m)? {
                continue;
            }
            if self.colour() {
                continue;
            }
            // "advance, firing as you go, to the fence": a modifier set
            // off by commas.
            if self.at_punct(',') && !self.at_end() {
                let save = self.pos;
                self.pos += 1;
                if !self.at_separator() && !self.at_trigger() && self.move_modifier(&mut m)? {
                    continue;
                }
                self.pos = save;
            }
            break;
        }
        Ok(m)
    }

    /// A retreat: like a move, but a bare distance ("fall back 3 inches")
    /// is straight back from the unit's facing.
    fn move_phrase_retreat(&mut self, verb: &str) -> PResult<MoveBuild> {
        let was = self.retreating;
        self.retreating = true;
        let m = self.move_phrase_retreat_inner(verb);
        self.retreating = was;
        m
    }

    fn move_phrase_retreat_inner(&mut self, verb: &str) -> PResult<MoveBuild> {
        self.eat_abbrev_dot();
        let mut m = MoveBuild::default();
        if self.at_number() && !self.toks.get(self.pos + 1).is_some_and(|t| t.is_punct(',')) {
            let from = self.at;
            let p = self.offset_place(from, normalize_deg(self.facing + 180.0))?;
            m.dests.push(p);
            while self.move_modifier(&mut m)? {}
        } else {
            m = self.move_phrase(Gait::March, verb)?;
        }
        if m.dests.is_empty() && m.vias.is_empty() {
            let example = self
                .ctx
                .example_place()
                .unwrap_or_else(|| "(34, 12)".to_string());
            return Err(self.expected(&format!(
                "a place after '{verb}', such as 'to {example}' or '6 inches south'"
            )));
        }
        Ok(m)
    }

    /// One modifier of a move; `false` when the next words are not one.
    fn move_modifier(&mut self, m: &mut MoveBuild) -> PResult<bool> {
        let from = self.at;
        // "150 yds N (28,18)": the umpire's coordinates for the place just
        // given are the place; the receipt says so when they differ.
        if self.at_punct('(')
            && !m.dests.is_empty()
            && matches!(
                self.toks.get(self.pos + 1).map(|t| &t.tok),
                Some(Tok::Number(_))
            )
        {
            let save = self.pos;
            if let Ok(p) = self.coordinates() {
                if let Some(last) = m.dests.last_mut() {
                    let was = *last;
                    *last = p;
                    if was.distance(p) > 0.5 {
                        self.note(format!(
                            "the place written as {} taken; the words before it give {}",
                            show_pos(p),
                            show_pos(was)
                        ));
                    }
                }
                return Ok(true);
            }
            self.pos = save;
        }
        // "at once", "at all costs": colour, not a place.
        if self.at_any(
            0,
            &[
                "at",
                "to",
                "with",
                "as",
                "if",
                "until",
                "till",
                "by",
                "slowly",
                "carefully",
                "cautiously",
                "quietly",
                "deliberately",
            ],
        ) && COLOUR.iter().any(|c| self.at_words(c))
        {
            return Ok(false);
        }
        // "... to General Gibbon to learn his wishes": a purpose, not a
        // second place.
        if self.at_word("to") && TAILS.iter().any(|t| self.at_words(t)) {
            return Ok(false);
        }
        if self.at_words(&["until", "reaching"])
            || self.at_words(&["until", "you", "reach"])
            || self.at_words(&["until", "they", "reach"])
            || self.at_words(&["till", "reaching"])
        {
            self.pos += if self.at_word("reaching") || self.word_at(1) == Some("reaching") {
                2
            } else {
                3
            };
            let p = self.place(from, false)?;
            m.dests.push(p);
            return Ok(true);
        }
        if self.eat_words(&["as", "far", "as"]) || self.eat_words(&["up", "to"]) {
            let p = self.place(from, false)?;
            m.dests.push(p);
            return Ok(true);
        }
        if let Some(f) = self.formation_words_after_in() {
            m.formation = Some(f);
            return Ok(true);
        }
        if self.gait_words() {
            m.gait = Gait::DoubleQuick;
            return Ok(true);
        }
        if self.eat_words(&["at", "the", "gallop"])
            || self.eat_words(&["at", "a", "gallop"])
            || self.eat_words(&["in", "haste"])
            || self.eat_word("quickly")
        {
            m.quick = true;
            return Ok(true);
        }
        if self.fire_while_words() {
            m.fire = true;
            return Ok(true);
        }
        if self.eat_any(&["backwards", "backward"]).is_some()
            || self.eat_words(&["facing", "the", "enemy"])
        {
            m.backwards = true;
            return Ok(true);
        }
        if self.eat_words(&["with", "bayonets", "fixed"])
            || self.eat_words(&["with", "fixed", "bayonets"])
            || self.eat_words(&["with", "bayonets"])
            || self.eat_words(&["with", "the", "bayonet"])
        {
            m.bayonets = true;
            return Ok(true);
        }
        if self.eat_words(&["by", "road"])
            || self.eat_words(&["by", "the", "road"])
            || self.eat_words(&["on", "the", "road"])
            || self.eat_words(&["along", "the", "road"])
        {
            m.by_road = true;
            return Ok(true);
        }
        if self.move_up_words() {
            return Ok(true);
        }
        if matches!(
            self.word_at(0),
            Some("by" | "along" | "down" | "up" | "on" | "using")
        ) {
            if self.at_word("by") && self.at_any(1, &["prolonge", "prolonges", "prolong", "hand"]) {
                // "retire by prolonge": guns drawn back by rope, firing
                // (APSoF does not model it): colour.
                let start = self.here();
                self.pos += 2;
                let end = self.last_end();
                self.note_colour(start, end);
                return Ok(true);
            }
            let save = self.pos;
            let w = self.word_at(0).unwrap_or_default();
            self.pos += 1;
            self.eat_words(&["way", "of"]);
            let roads = self.ctx.roads();
            let named = self.pos;
            let found = self.name(&roads);
            // "advance on the Brawner farm" is toward the farm, not along
            // the Brawner farm lane: after "on", the road's whole name.
            let whole = w != "on" || {
                let words = token_words(self.toks.get(named..self.pos).unwrap_or_default());
                roads
                    .iter()
                    .any(|c| super::names::match_quality(&words, &c.words) == Some(true))
            };
            match found {
                Lookup::Found(_) if whole => {
                    m.by_road = true;
                    return Ok(true);
                }
                _ if w == "by" => {
                    self.pos = save + 1;
                    if self.eat_words(&["way", "of"]) {
                        let p = self.place(from, false)?;
                        m.vias.push(p);
                        return Ok(true);
                    }
                    return Err(self
                        .need_name(&roads, &|s| {
                            format!("expected a road after 'by', found {s}")
                        })
                        .err()
                        .unwrap_or_else(|| self.expected("a road after 'by'")));
                }
                _ => self.pos = save,
            }
        }
        // "advance north to the woods": the compass word says the way to
        // the place; the place is the destination.
        if m.dests.is_empty() && m.vias.is_empty() {
            let save = self.pos;
            let way = self.compass();
            if way.is_some() && self.at_any(0, &["to", "toward", "towards", "into", "onto"]) {
                return Ok(true);
            }
            // "move east on the pike 200 yds": the way, by the road, that
            // far.
            if let Some(b) = way
                && self.at_any(0, &["on", "along", "by", "up", "down"])
            {
                self.pos += 1;
                let roads = self.ctx.roads();
                if matches!(self.name(&roads), Lookup::Found(_)) {
                    if self.at_number() {
                        let d = self.distance()?;
                        let (dx, dy) = geometry::facing_vector(b);
                        m.dests.push(Pos::new(from.x + dx * d, from.y + dy * d));
                        m.by_road = true;
                        return Ok(true);
                    }
                    // "move east on the pike to the farm lane".
                    if self.at_any(0, &["to", "as", "till", "until"]) {
                        self.eat_words(&["as", "far", "as"]);
                        self.eat_any(&["to", "till", "until"]);
                        let p = self.place(from, false)?;
                        m.dests.push(p);
                        m.by_road = true;
                        return Ok(true);
                    }
                }
            }
            self.pos = save;
        }
        if let Some(w) = self.eat_any(&["via", "through", "past", "across", "over"]) {
            let _ = w;
            let p = self.place(from, false)?;
            m.vias.push(p);
            return Ok(true);
        }
        if self
            .eat_any(&["to", "toward", "towards", "into", "onto", "at"])
            .is_some()
        {
            let p = self.place(from, false)?;
            m.dests.push(p);
            return Ok(true);
        }
        // "advance on the Douglass house": toward it.
        if m.dests.is_empty()
            && m.vias.is_empty()
            && self.at_any(0, &["on", "upon"])
            && !self.at_trigger()
        {
            let save = self.pos;
            self.pos += 1;
            match self.place(from, true) {
                Ok(p) => {
                    m.dests.push(p);
                    return Ok(true);
                }
                Err(_) => self.pos = save,
            }
        }
        if m.dests.is_empty() && m.vias.is_empty() && self.starts_place() {
            let p = self.place(from, false)?;
            m.dests.push(p);
            return Ok(true);
        }
        Ok(false)
    }

    /// Whether a place that needs no preposition starts here: a number, a
    /// coordinate, a compass point and a distance ("NE 200 yds"), or a
    /// position relative to a unit or place.
    fn starts_place(&self) -> bool {
        self.at_number()
            || self.at_punct('(')
            || self.at_relative()
            || self.at_compass_distance()
            // "go between the farm and the orchard": midway.
            || self.at_word("between")
    }

    /// "at the double (quick)", "double quick", "in double time", ...
    fn gait_words(&mut self) -> bool {
        let ps: &[&[&str]] = &[
            &["at", "the", "double", "quick"],
            &["at", "the", "double", "time"],
            &["at", "the", "double"],
            &["at", "double", "quick"],
            &["at", "double", "time"],
            &["at", "the", "run"],
            &["in", "double", "time"],
            &["in", "double", "quick"],
            &["in", "double", "quick", "time"],
            &["double", "quick"],
            &["double", "time"],
            &["on", "the", "double"],
            // "adv 8\" N DQ", "at DQ": umpire shorthand.
            &["at", "dq"],
            &["dq"],
        ];
        ps.iter().any(|p| self.eat_words(p))
    }

    /// "firing", "fire while advancing", "firing as you go", ...
    fn fire_while_words(&mut self) -> bool {
        let ps: &[&[&str]] = &[
            &["firing", "while", "advancing"],
            &["firing", "while", "moving"],
            &["firing", "as", "you", "advance"],
            &["firing", "as", "you", "go"],
            &["firing", "as", "they", "advance"],
            &["fire", "while", "advancing"],
            &["fire", "while", "moving"],
            &["fire", "as", "you", "advance"],
            &["fire", "as", "you", "go"],
            &["while", "firing"],
            &["and", "firing"],
        ];
        if ps.iter().any(|p| self.eat_words(p)) {
            return true;
        }
        // A bare "firing" inside a move ("advance firing to the fence").
        if self.at_word("firing") && !self.at_words(&["firing", "at"]) {
            let next = self.word_at(1);
            if next.is_none_or(|w| matches!(w, "to" | "toward" | "towards" | "in" | "at" | "then"))
            {
                self.pos += 1;
                return true;
            }
        }
        false
    }

    /// "in line", "into column", "in skirmish order", "en masse", "as
    /// skirmishers": a formation for the move.
    fn formation_words_after_in(&mut self) -> Option<Formation> {
        let save = self.pos;
        if self.eat_words(&["en", "masse"]) {
            return Some(Formation::EnMasse);
        }
        if self.eat_words(&["as", "skirmishers"]) {
            return Some(Formation::Skirmish);
        }
        if self.eat_any(&["in", "into"]).is_some() {
            self.eat_any(&["a", "an"]);
            if let Some(f) = self.formation() {
                return Some(f);
            }
        }
        self.pos = save;
        None
    }

    /// A formation name (APSoF III).
    fn formation(&mut self) -> Option<Formation> {
        let f = if self.eat_words(&["column", "of", "companies"])
            || self.eat_words(&["company", "column"])
            || self.eat_words(&["company", "columns"])
            || self.eat_words(&["columns", "of", "companies"])
        {
            Formation::CompanyColumn
        } else if self.eat_words(&["en", "masse"])
            || self.eat_word("mass")
            || self.eat_word("masse")
        {
            Formation::EnMasse
        } else if self.eat_words(&["line", "of", "battle"])
            || self.eat_words(&["battle", "line"])
            || self.eat_word("line")
        {
            Formation::Line
        } else if self.eat_any(&["column", "columns"]).is_some()
            // "col, adv S 6in": shorthand, but not "Col. Cutler".
            || (self.at_word("col")
                && !self.toks.get(self.pos + 1).is_some_and(|t| t.is_punct('.'))
                && self.eat_word("col"))
        {
            // "column of fours": the drill's marching column (APSoF III).
            self.eat_words(&["of", "fours"]);
            Formation::Column
        } else if self
            .eat_any(&["skirmish", "skirmishers", "skirmishing"])
            .is_some()
            || self.eat_words(&["open", "order"])
        {
            self.eat_word("order");
            self.eat_word("line");
            Formation::Skirmish
        } else if self.eat_word("limbered") {
            Formation::Limbered
        } else if self.eat_word("unlimbered") {
            Formation::Unlimbered
        } else if let Some(f) = self.word_at(0).and_then(|w| {
            // One slip of the pen in a long formation name ("colum",
            // "skirmshers").
            [
                ("column", Formation::Column),
                ("skirmishers", Formation::Skirmish),
            ]
            .into_iter()
            .find(|(name, _)| w.len() >= 5 && strsim::damerau_levenshtein(w, name) == 1)
            .map(|(_, f)| f)
        }) {
            self.pos += 1;
            f
        } else {
            return None;
        };
        self.eat_any(&["formation", "order"]);
        Some(f)
    }

    // ------------------------------------------------------------ clauses

    fn attack(&mut self, steps: &mut Vec<Step>, verb: &str) -> PResult<()> {
        let at = self.here();
        let mut target = self.designation_a();
        if target.is_none() {
            if let Some(d) = self.enemy_description() {
                target = Some(self.described_enemy(&d, at)?);
            } else {
                let enemies = self.ctx.visible_enemy_units();
                if let Lookup::Found(t) = self.name(&enemies) {
                    target = Some(t);
                }
            }
        }
        let mut m = self.move_phrase(Gait::March, verb)?;
        m.target = m.target.or(target);
        if m.target.is_some() || m.bayonets || m.gait == Gait::DoubleQuick {
            steps.push(Step {
                trigger: Trigger::Then,
                action: Action::Charge {
                    target: m.target,
                    to: m.waypoints().last().copied(),
                    gait: m.gait,
                },
            });
        } else {
            self.require_destination(&m, verb)?;
            steps.push(Step {
                trigger: Trigger::Then,
                action: Action::Move(m.order()),
            });
        }
        Ok(())
    }

    fn charge(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        if self.eat_word("bayonets") {
            self.note("'charge bayonets' read as: charge");
        }
        self.eat_any(&["at", "into", "on", "upon"]);
        let at = self.here();
        let mut target = self.designation_a();
        if target.is_some() {
            // Named by the capital letter A.
        } else if let Some(d) = self.enemy_description() {
            target = Some(self.described_enemy(&d, at)?);
        } else if self.peek().and_then(|t| t.word()).is_some_and(|w| {
            !matches!(
                w,
                "to" | "toward" | "towards" | "at" | "in" | "with" | "double" | "then" | "and"
            )
        }) {
            let enemies = self.ctx.visible_enemy_units();
            let hint = self.in_sight_hint();
            target = Some(self.need_name(&enemies, &|s| {
                format!("no enemy unit in sight is called {s}; you can only charge enemies your side can see, and {hint}")
            })?);
        }
        let m = self.move_phrase(Gait::March, "charge")?;
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Charge {
                target: target.or(m.target),
                to: m.waypoints().last().copied(),
                gait: m.gait,
            },
        });
        Ok(())
    }

    /// "the regiment marked F", "the battery designated C", "the enemy
    /// shown as B": the words before a designation, eaten when one
    /// follows them (the designation itself is left to be read).
    fn skip_to_marked_designation(&mut self) {
        const KINDS: &[&str] = &[
            "the", "enemy", "enemy's", "rebel", "reb", "yankee", "federal", "regiment", "battery",
            "unit", "infantry", "guns", "line", "troops", "body",
        ];
        const MARKS: &[&str] = &[
            "marked",
            "designated",
            "labelled",
            "labeled",
            "lettered",
            "called",
            "shown",
            "known",
            "identified",
            "reported",
        ];
        let mut k = 0;
        while k < 4 && self.at_any(k, KINDS) {
            k += 1;
        }
        if !self.at_any(k, MARKS) {
            return;
        }
        k += 1;
        if self.at_word_k(k, "as") {
            k += 1;
        }
        let capital_a = self
            .toks
            .get(self.pos + k)
            .is_some_and(|t| self.text.get(t.start..t.end) == Some("A"));
        if self.designation_at(k) || capital_a {
            self.pos += k;
        }
    }

    /// Whether the word `k` tokens ahead is `w`.
    fn at_word_k(&self, k: usize, w: &str) -> bool {
        self.word_at(k) == Some(w)
    }

    /// A capital "A" standing alone: the designation A (the bare letter
    /// is not a candidate name, since "a" is the article), when his side
    /// sees the unit it stands for.
    fn designation_a(&mut self) -> Option<UnitId> {
        let t = self.peek()?;
        if self.text.get(t.start..t.end) != Some("A") {
            return None;
        }
        let id = self.ctx.enemy_names.by_designation("A")?;
        if !self.ctx.visible_enemies.contains(&id) {
            return None;
        }
        self.pos += 1;
        Some(id)
    }

    /// Whether the word `k` tokens ahead is one of the side's designations
    /// (lower-case "a" excepted: the article).
    /// What the side sees now, as it may call it: "enemy A, C and D" under
    /// hidden identities (the report's letters), the units' names under
    /// known ones; `None` when it sees no enemy. For refusals, so that a
    /// player who named what he may not is told what he may.
    fn in_sight_words(&self) -> Option<String> {
        let mut seen: Vec<String> = self
            .ctx
            .visible_enemies
            .iter()
            .filter_map(|id| {
                if self.ctx.enemy_names.known() {
                    self.ctx.state.unit(*id).map(|u| u.name.clone())
                } else {
                    self.ctx.enemy_names.designation(*id).map(str::to_string)
                }
            })
            .collect();
        if seen.is_empty() {
            return None;
        }
        seen.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        let list = match seen.as_slice() {
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
            [] => String::new(),
        };
        Some(if self.ctx.enemy_names.known() {
            list
        } else {
            format!("enemy {list}")
        })
    }

    /// "...; your side sees enemy A, C and D now" (or that it sees none).
    fn in_sight_hint(&self) -> String {
        match self.in_sight_words() {
            Some(list) => format!("your side sees {list} now"),
            None => "your side sees no enemy now".to_string(),
        }
    }

    /// A report letter the side has not given ("enemy G"): one capital
    /// letter (or two, "AA") as written, not a known designation.
    fn unknown_letter_at(&self, k: usize) -> Option<String> {
        let t = self.toks.get(self.pos + k)?;
        t.word()?;
        let written = self.text.get(t.start..t.end)?;
        let letters =
            (1..=2).contains(&written.len()) && written.chars().all(|c| c.is_ascii_uppercase());
        (letters && !self.designation_at(k)).then(|| written.to_string())
    }

    fn designation_at(&self, k: usize) -> bool {
        let Some(t) = self.toks.get(self.pos + k) else {
            return false;
        };
        let Some(w) = t.word() else {
            return false;
        };
        let written = self.text.get(t.start..t.end).unwrap_or(w);
        written != "a" && self.ctx.enemy_names.by_designation(w).is_some()
    }

    /// An enemy described as a player would (issue #14 §1): "the enemy",
    /// "the nearest enemy", "the enemy battery", "the nearest regiment",
    /// "the regiment to our front", "the enemy in front of us". Consumes
    /// the words only when they are such a description; a designation
    /// after the kind ("the enemy battery C") is left for the name lookup.
    fn enemy_description(&mut self) -> Option<EnemyDescription> {
        let save = self.pos;
        self.eat_any(&["the", "that", "any"]);
        let nearest = self.eat_any(&["nearest", "closest"]).is_some();
        let enemy = self.eat_enemy_word();
        // "enemy B", "the enemy battery C": a designation, for the name
        // lookup.
        if self.designation_at(0) {
            self.pos = save;
            return None;
        }
        // "horse battery", "field battery", "rifled guns": artillery.
        if self.at_any(
            0,
            &["horse", "field", "rifled", "light", "heavy", "smoothbore"],
        ) && self.at_any(1, &["battery", "batteries", "guns", "artillery", "section"])
        {
            self.pos += 1;
        }
        let arm = match self.word_at(0) {
            Some("battery" | "batteries" | "guns" | "gun" | "artillery" | "cannon" | "section") => {
                Some(Arm::Artillery)
            }
            Some("regiment" | "infantry" | "foot" | "line") => Some(Arm::Infantry),
            Some("cavalry" | "horse" | "horsemen" | "troopers") => Some(Arm::Cavalry),
            _ => None,
        };
        if arm.is_some() {
            self.pos += 1;
            if self.designation_at(0) {
                self.pos = save;
                return None;
            }
        } else if enemy
            && self.at_any(
                0,
                &[
                    "column",
                    "columns",
                    "troops",
                    "force",
                    "mass",
                    "body",
                    "formation",
                    "unit",
                ],
            )
        {
            // "the enemy column", "the enemy troops": of any kind.
            self.pos += 1;
        }
        let (near, mut within) = self.description_place();
        let front = self.eat_words(&["to", "our", "front"])
            || self.eat_words(&["in", "our", "front"])
            || self.eat_words(&["in", "your", "front"])
            || self.eat_words(&["on", "our", "front"])
            || self.eat_words(&["opposite", "us"])
            || self.eat_words(&["facing", "us"])
            || self.eat_words(&["to", "your", "front"])
            || self.eat_words(&["to", "its", "front"])
            || self.eat_words(&["to", "their", "front"])
            || self.eat_words(&["to", "the", "front"])
            || self.eat_words(&["in", "front", "of", "us"])
            || self.eat_words(&["in", "front"])
            || self.eat_words(&["before", "us"])
            || self.eat_words(&["ahead"]);
        let near = match near {
            Some(p) => Some(p),
            None => {
                let (n, w) = self.description_place();
                within = w;
                n
            }
        };
        if enemy || (arm.is_some() && (nearest || front || near.is_some())) {
            Some(EnemyDescription {
                arm,
                front,
                near,
                within,
            })
        } else {
            self.pos = save;
            None
        }
    }

    /// The enemy unit a description stands for: of those his side sees
    /// now, of the kind named, in front of the ordered unit's line if so
    /// written, the nearest. Nothing unseen is ever chosen or mentioned.
    fn described_enemy(&self, d: &EnemyDescription, at: usize) -> PResult<UnitId> {
        let here = self.at;
        let from = d.near.unwrap_or(here);
        let found = self
            .ctx
            .visible_enemies
            .iter()
            .filter_map(|id| self.ctx.state.unit(*id))
            .filter(|u| u.side != self.ctx.side)
            .filter(|u| match d.arm {
                None => true,
                Some(Arm::Artillery) => u.arm.is_artillery(),
                Some(Arm::Cavalry) => u.arm == Arm::Cavalry,
                Some(a) => u.arm == a,
            })
            .filter(|u| {
                d.within
                    .and_then(|r| self.ctx.outline(r))
                    .is_none_or(|ring| super::context::inside(ring, u.position))
            })
            .filter(|u| {
                // In front: ahead of the line the unit faces along.
                !d.front
                    || geometry::angle_between(self.facing, geometry::bearing(here, u.position))
                        < 90.0
            })
            .min_by(|a, b| {
                a.position
                    .distance(from)
                    .total_cmp(&b.position.distance(from))
                    .then(a.id.cmp(&b.id))
            });
        found.map(|u| u.id).ok_or_else(|| PErr {
            at,
            message: format!(
                "no enemy {}is in sight{}; name an enemy your report shows by its letter, as in 'fire at B'",
                match d.arm {
                    Some(Arm::Artillery) => "battery ",
                    Some(Arm::Cavalry) => "cavalry ",
                    Some(_) => "regiment ",
                    None => "",
                },
                if d.front {
                    " to your front".to_string()
                } else if let Some(r) = d.within {
                    format!(" on {}", self.place_name(r))
                } else if d.near.is_some() {
                    " there".to_string()
                } else {
                    String::new()
                }
            ),
            suggestions: Vec::new(),
        })
    }

    fn form(&mut self, steps: &mut Vec<Step>, verb: &str) -> PResult<()> {
        if self.form_relative(steps)? {
            return Ok(());
        }
        if verb == "change" {
            self.eat_word("formation");
            self.eat_any(&["to", "into"]);
        }
        // "deploy your regiment into line", "form the men in column",
        // "form them into line": the unit itself, then the formation.
        if !(verb == "deploy" && self.unit.is_some_and(|u| u.arm.is_artillery())) {
            let save = self.pos;
            let whom = self.eat_words(&["your", "regiment"])
                || self.eat_words(&["your", "men"])
                || self.eat_words(&["the", "regiment"])
                || self.eat_words(&["the", "men"])
                || self.eat_words(&["your", "command"])
                || self.eat_any(&["them", "it"]).is_some();
            if whom && !self.at_any(0, &["into", "in", "to"]) {
                self.pos = save;
            }
        }
        self.eat_any(&["into", "in", "to", "up"]);
        self.eat_any(&["a", "an"]);
        // "deploy as skirmishers".
        if self.at_words(&["as", "skirmishers"]) {
            self.pos += 1;
        }
        let is_artillery = self.unit.is_some_and(|u| u.arm.is_artillery());
        if verb == "deploy" && (is_artillery || self.at_word("the") || self.at_word("guns")) {
            self.eat_word("the");
            self.eat_any(&["guns", "battery"]);
            let save = self.pos;
            let named = self.formation().is_some();
            self.pos = save;
            if is_artillery && !named {
                let facing = self.optional_facing()?;
                steps.push(Step {
                    trigger: Trigger::Then,
                    action: Action::Unlimber { facing },
                });
                return Ok(());
            }
        }
        let Some(formation) = self.formation() else {
            return Err(self.expected(&format!(
                "a formation after '{verb}': line, column, skirmish order, company column or en masse"
            )));
        };
        let facing = self.optional_facing()?;
        let action = match formation {
            Formation::Limbered => Action::Limber,
            Formation::Unlimbered => Action::Unlimber { facing },
            _ => Action::Form { formation, facing },
        };
        // "deploy into line at the crossroads": go there first.
        let save = self.pos;
        if self.eat_any(&["at", "in", "on"]).is_some() && !self.at_trigger() {
            let from = self.at;
            if let Ok(p) = self.place(from, true) {
                steps.push(Step {
                    trigger: Trigger::Then,
                    action: Action::Move(MoveOrder {
                        waypoints: vec![p],
                        by_road: false,
                        formation: None,
                        gait: Gait::March,
                        fire_while_moving: false,
                        backwards: false,
                    }),
                });
                steps.push(Step {
                    trigger: Trigger::OnArrival,
                    action,
                });
                return Ok(());
            }
        }
        self.pos = save;
        steps.push(Step {
            trigger: Trigger::Then,
            action,
        });
        Ok(())
    }

    /// "facing north", "to face the woods", "toward the ford" after a
    /// formation or unlimber order.
    fn optional_facing(&mut self) -> PResult<Option<Direction>> {
        let save = self.pos;
        let comma = self.eat_punct(',');
        if self.eat_word("facing")
            || self.eat_words(&["to", "face"])
            || self.eat_words(&["and", "face"])
        {
            return Ok(Some(self.direction()?));
        }
        if self.at_word("toward") || self.at_word("towards") {
            return Ok(Some(self.direction()?));
        }
        if comma {
            self.pos = save;
        }
        Ok(None)
    }

    fn face(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let dir = if self.eat_words(&["about", "face"])
            || self.eat_words(&["about", "turn"])
            || self.eat_words(&["face", "about"])
            || self.eat_words(&["turn", "about"])
            || self.eat_words(&["turn", "around"])
            || self.eat_words(&["face", "the", "rear"])
            || self.eat_words(&["face", "to", "the", "rear"])
        {
            Direction::About
        } else {
            self.pos += 1;
            self.eat_words(&["to", "face"]);
            self.direction()?
        };
        self.track_facing(&dir);
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Face(dir),
        });
        Ok(())
    }

    /// Every step written so far that gives the unit a new front ("face
    /// 330", "deploy into line facing north") counts for the moves after
    /// it, whichever verb wrote it.
    fn sync_facing(&mut self, steps: &[Step]) {
        if steps.len() < self.facing_seen {
            self.facing_seen = 0;
        }
        let new: Vec<Direction> = steps
            .get(self.facing_seen..)
            .unwrap_or_default()
            .iter()
            .filter_map(|s| match &s.action {
                Action::Face(d) => Some(*d),
                Action::Form {
                    facing: Some(d), ..
                } => Some(*d),
                _ => None,
            })
            .collect();
        self.facing_seen = steps.len();
        if let Some(d) = new.last() {
            self.track_facing(d);
        }
    }

    /// The unit faces `d` from this step on, so that a later "advance 4
    /// in" or "to the left" is measured from its new front ("face 330,
    /// line, adv 4 in" goes toward 330°, not along the old facing).
    fn track_facing(&mut self, d: &Direction) {
        self.facing = match d {
            Direction::Degrees(deg) => normalize_deg(*deg),
            Direction::About => normalize_deg(self.facing + 180.0),
            Direction::Toward(p) => geometry::bearing(self.at, *p),
            Direction::TowardUnit(u) => match self.ctx.state.unit(*u) {
                Some(t) => geometry::bearing(self.at, t.position),
                None => self.facing,
            },
        };
    }

    /// A direction: compass point, degrees, left/right/about, or toward a
    /// place or a visible enemy.
    fn direction(&mut self) -> PResult<Direction> {
        self.eat_words(&["to", "the"]);
        // "face the north" (not "the north woods").
        if self.at_word("the")
            && self.word_at(1).and_then(compass_letters).is_some()
            && self.toks.get(self.pos + 2).is_none_or(|t| {
                matches!(t.tok, Tok::Punct(_)) || t.is_word("and") || t.is_word("then")
            })
        {
            self.pos += 1;
        }
        if self.eat_any(&["about", "around", "rear"]).is_some() || self.eat_words(&["the", "rear"])
        {
            return Ok(Direction::About);
        }
        if let Some(d) = self.compass() {
            return Ok(Direction::Degrees(d));
        }
        if let Some(n) = self.number() {
            self.eat_any(&["degrees", "degree", "deg"]);
            self.eat_punct('\u{b0}');
            if !(0.0..=360.0).contains(&n) {
                return Err(self.err(format!(
                    "{n} is not a compass bearing; give degrees from 0 (north) to 360"
                )));
            }
            return Ok(Direction::Degrees(normalize_deg(n)));
        }
        if self.eat_word("left") {
            return Ok(Direction::Degrees(normalize_deg(self.facing - 90.0)));
        }
        if self.eat_word("right") {
            return Ok(Direction::Degrees(normalize_deg(self.facing + 90.0)));
        }
        self.eat_any(&["toward", "towards", "to"]);
        if let Some(u) = self.designation_a() {
            return Ok(Direction::TowardUnit(u));
        }
        let at = self.here();
        if let Some(d) = self.enemy_description() {
            return match self.described_enemy(&d, at) {
                Ok(u) => Ok(Direction::TowardUnit(u)),
                Err(mut e) => {
                    e.message = format!(
                        "{}; or give a compass direction such as 'north-west' or '270'",
                        e.message
                    );
                    Err(e)
                }
            };
        }
        let enemies = self.ctx.visible_enemy_units();
        if let Lookup::Found(u) = self.name(&enemies) {
            return Ok(Direction::TowardUnit(u));
        }
        if self.at_end() || self.at_separator() {
            return Err(self.expected(
                "a direction: a compass point ('north-west', 'NW'), degrees ('270'), or 'toward' a place",
            ));
        }
        let from = self.at;
        let p = self.place(from, false).map_err(|mut e| {
            e.message = format!(
                "{}; a direction is a compass point ('north-west', 'NW'), degrees ('270'), or a place to face",
                e.message
            );
            e
        })?;
        Ok(Direction::Toward(p))
    }

    /// One to three compass words ("north west", "NW", "north-north-east"),
    /// or an umpire's bearing or clock hour ([`Self::bearing_at`]).
    fn compass(&mut self) -> Option<f64> {
        if let Some((n, d)) = self.bearing_at(0) {
            self.pos += n;
            return Some(d);
        }
        let mut letters = String::new();
        // "due south": the same as "south".
        let due =
            usize::from(self.at_word("due") && self.word_at(1).and_then(compass_letters).is_some());
        let mut used = due;
        let mut best: Option<(usize, f64)> = None;
        while used < 3 + due {
            let Some(l) = self.word_at(used).and_then(compass_letters) else {
                break;
            };
            letters.push_str(&l);
            used += 1;
            if let Some((_, d)) = COMPASS.iter().find(|(n, _)| *n == letters) {
                best = Some((used, *d));
            }
        }
        let (n, d) = best?;
        self.pos += n;
        Some(d)
    }

    /// "fire", "open fire", "shoot": at one target (APSoF V), together
    /// with other units of the writer's command (V.F.1: "fire at the 5th
    /// Tennessee together with the 12th Ohio"), or with shares of the
    /// castings at several targets (V.F.2: "fire 8 castings at the 5th
    /// Tennessee and the rest at the battery").
    fn fire(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        if self.fire_while_words() {
            let last_move = steps.iter_mut().rev().find_map(|s| match &mut s.action {
                Action::Move(m) => Some(m),
                _ => None,
            });
            return match last_move {
                Some(m) => {
                    m.fire_while_moving = true;
                    Ok(())
                }
                None => Err(self.err(
                    "'fire while advancing' goes with a move; write it after 'advance to ...' in the same order",
                )),
            };
        }
        let verb = self.word_at(0).unwrap_or_default();
        self.pos += 1;
        if verb == "open"
            && !self.eat_word("fire")
            && !(self.eat_word("up") || self.at_any(0, &["on", "upon", "at"]))
        {
            return Err(self.expected("'fire' after 'open'"));
        }
        self.eat_word("away");
        self.fire_colour();
        // V.F.2: a share right after the verb ("fire 8 castings at ...",
        // "fire half at ...", "fire only 6 castings at ...", "fire with 8
        // castings at ...").
        if self.share_at(0) || (self.at_any(0, &["only", "with"]) && self.share_at(1)) {
            self.eat_any(&["only", "with"]);
            let parts = self.fire_parts()?;
            steps.push(Step {
                trigger: Trigger::Then,
                action: Action::SplitFire { parts },
            });
            return Ok(());
        }
        let (target, with) = self.fire_body()?;
        let target = target.unwrap_or(FireTarget::AtWill);
        // "fire on C and D": its fire split between them (APSoF V.F.2).
        if with.is_none()
            && matches!(target, FireTarget::Unit(_))
            && self.at_word("and")
            && self.designation_at(1)
            && self.toks.get(self.pos + 2).is_none_or(|t| {
                matches!(t.tok, Tok::Punct(_)) || t.is_word("then") || t.is_word("and")
            })
        {
            let start = self.here();
            self.pos += 1;
            let second = self.fire_target()?;
            steps.push(Step {
                trigger: Trigger::Then,
                action: Action::SplitFire {
                    parts: vec![
                        FirePart {
                            share: FireShare::Half,
                            target,
                        },
                        FirePart {
                            share: FireShare::Rest,
                            target: second,
                        },
                    ],
                },
            });
            let _ = start;
            self.note(
                "two targets read as: its fire split between them, half at each (APSoF V.F.2)",
            );
            return Ok(());
        }
        let action = match with {
            Some(with) => Action::FireWith { target, with },
            None => Action::Fire(target),
        };
        steps.push(Step {
            trigger: Trigger::Then,
            action,
        });
        // "fire on D then E": the same fire at the next target after.
        while self.at_word("then")
            && self.designation_at(1)
            && self
                .toks
                .get(self.pos + 2)
                .is_none_or(|t| matches!(t.tok, Tok::Punct(_)) || t.is_word("then"))
        {
            self.pos += 1;
            let next = self.fire_target()?;
            steps.push(Step {
                trigger: Trigger::Then,
                action: Action::Fire(next),
            });
        }
        Ok(())
    }

    /// Whether the word `k` tokens ahead is one of `ws`.
    fn at_any(&self, k: usize, ws: &[&str]) -> bool {
        self.word_at(k).is_some_and(|w| ws.contains(&w))
    }

    /// Whether "fire" (as a noun) is written `k` tokens ahead: "fire",
    /// "its fire", "their fire" — what makes "combine" and "split" fire
    /// orders (APSoF V.F) instead of VII's reorganisation of units.
    fn at_fire_noun(&self, k: usize) -> bool {
        const FIRE: &[&str] = &["fire", "fires", "firing"];
        self.at_any(k, FIRE)
            || (self.at_any(k, &["its", "their", "your", "the"]) && self.at_any(k + 1, FIRE))
    }

    /// The target and the partners of a fire, in either order: "at the 5th
    /// Tennessee together with the 12th Ohio", "with the 12th Ohio at the
    /// 5th Tennessee", "at will", or neither (`None`s).
    fn fire_body(&mut self) -> PResult<(Option<FireTarget>, Option<Vec<UnitId>>)> {
        let mut target = None;
        let mut with = None;
        loop {
            if target.is_none() && !self.at_trigger() {
                if self.eat_words(&["at", "will"]) || self.eat_word("freely") {
                    target = Some(FireTarget::AtWill);
                    continue;
                }
                if self.eat_any(&["at", "on", "upon", "into"]).is_some() {
                    target = Some(self.fire_target()?);
                    continue;
                }
                // Umpire's shorthand: "fire E", "fire enemy C".
                if self.designation_at(0)
                    || (self.at_any(0, &["enemy", "enemies"]) && self.designation_at(1))
                {
                    target = Some(self.fire_target()?);
                    continue;
                }
            }
            if with.is_none() && self.partners_ahead() {
                with = Some(self.fire_partners()?);
                continue;
            }
            return Ok((target, with));
        }
    }

    /// Whether the units a fire is combined with follow: "with ...",
    /// "together with ...", "along with ...". Not "with bayonets" (colour
    /// for a charge) nor "with 8 castings" (a share).
    fn partners_ahead(&self) -> bool {
        if self.at_words(&["together", "with"])
            || self.at_words(&["along", "with"])
            || self.at_words(&["jointly", "with"])
            || self.at_words(&["in", "concert", "with"])
        {
            return true;
        }
        self.at_word("with")
            && !TAILS.iter().any(|t| self.at_words(t))
            && !COLOUR.iter().any(|t| self.at_words(t))
            && !self.share_at(1)
    }

    /// The units a fire is combined with (APSoF V.F.1): "with the 12th Ohio
    /// and the 14th Ohio", "together with the 12th, the 14th and Battery A".
    /// The list reads its own "and" and "," when another unit follows, so
    /// "fire with the 12th Ohio and hold" still has two steps.
    fn fire_partners(&mut self) -> PResult<Vec<UnitId>> {
        let _ = self.eat_words(&["together", "with"])
            || self.eat_words(&["along", "with"])
            || self.eat_words(&["jointly", "with"])
            || self.eat_words(&["in", "concert", "with"])
            || self.eat_word("with");
        let mut with: Vec<UnitId> = Vec::new();
        loop {
            let at = self.here();
            let id = self.fire_partner()?;
            if with.contains(&id) {
                return Err(PErr {
                    at,
                    message: format!(
                        "{} is named twice; name each unit once",
                        self.unit_called(id)
                    ),
                    suggestions: Vec::new(),
                });
            }
            with.push(id);
            let save = self.pos;
            let comma = self.eat_punct(',');
            let and = self.eat_word("and") || self.eat_punct('&');
            if (comma || and) && self.partner_follows() {
                continue;
            }
            self.pos = save;
            return Ok(with);
        }
    }

    /// After "," or "and" in a list of partners: whether another unit is
    /// named (a unit of the side, or words that read as a unit's name
    /// rather than the next step: "the ...", "13th ...").
    fn partner_follows(&mut self) -> bool {
        let save = self.pos;
        let own = self.ctx.own_units();
        let found = !matches!(self.name(&own), Lookup::NotFound);
        self.pos = save;
        if found {
            return true;
        }
        match self.word_at(0) {
            Some("the") => self.word_at(1).is_some_and(|w| resolve_verb(w).is_none()),
            Some(w) => {
                w.starts_with(|c: char| c.is_ascii_digit())
                    && super::names::norm_word(w).starts_with('#')
            }
            None => false,
        }
    }

    /// One unit a fire is combined with. Only units the writer commands
    /// (the same units he may head an order with), never the firing unit
    /// itself; an enemy's name or a name of nothing gets the answer any
    /// unknown friendly name gets, so nothing about unseen enemies leaks.
    fn fire_partner(&mut self) -> PResult<UnitId> {
        const ALLOWED: &str = "fire can be combined only with units you command";
        let at = self.here();
        let written = self.phrase_text();
        let me = self.unit.map(|u| u.id);
        let own = self.ctx.own_units();
        let allowed = || -> Vec<Candidate<UnitId>> {
            own.iter()
                .filter(|c| self.ctx.commands(c.target) && Some(c.target) != me)
                .cloned()
                .collect()
        };
        let refuse = |message: String, suggestions: Vec<String>| PErr {
            at,
            message,
            suggestions,
        };
        if written.is_empty() {
            return Err(refuse(
                format!(
                    "expected a unit you command after 'with', found {}; {ALLOWED}",
                    self.found()
                ),
                Vec::new(),
            ));
        }
        match self.name(&own) {
            Lookup::Found(id) if Some(id) == me => Err(refuse(
                format!(
                    "{} cannot combine fire with itself; name another unit you command",
                    self.unit_called(id)
                ),
                Vec::new(),
            )),
            Lookup::Found(id) if !self.ctx.commands(id) => Err(refuse(
                format!(
                    "{} is not under your command; {ALLOWED}",
                    self.unit_called(id)
                ),
                Vec::new(),
            )),
            Lookup::Found(id) => Ok(id),
            Lookup::Ambiguous(names) => Err(refuse(
                format!("'{written}' could mean more than one; write the name in full"),
                names,
            )),
            Lookup::NotFound => Err(refuse(
                format!("no unit of your side is called '{written}'; {ALLOWED}"),
                suggest(&written, &allowed()),
            )),
        }
    }

    /// A unit's name in a message: "the 12th Ohio" (a numbered regiment,
    /// as the head-of-order messages write it), "Ridley's Battery".
    fn unit_called(&self, id: UnitId) -> String {
        if !self.ctx.enemy_names.known()
            && self
                .ctx
                .state
                .unit(id)
                .is_some_and(|u| u.side != self.ctx.side)
        {
            // An enemy whose name is hidden: as the policy calls it.
            return self.ctx.call_unit(id);
        }
        let name = self
            .ctx
            .state
            .unit(id)
            .map(|u| u.name.as_str())
            .unwrap_or("that unit");
        if name.starts_with(|c: char| c.is_ascii_digit()) {
            format!("the {name}")
        } else {
            name.to_string()
        }
    }

    /// Whether a share of a split fire starts `k` tokens ahead: a number
    /// of castings, "half", "the rest", "the other half", "the remainder",
    /// "the others".
    fn share_at(&self, k: usize) -> bool {
        if matches!(
            self.toks.get(self.pos + k).map(|t| &t.tok),
            Some(Tok::Number(_))
        ) {
            return true;
        }
        match self.word_at(k) {
            Some("half" | "rest" | "remainder") => true,
            Some("the") => {
                self.at_any(k + 1, &["rest", "remainder", "others", "remaining"])
                    || (self.at_any(k + 1, &["other"]) && self.at_any(k + 2, &["half"]))
            }
            _ => false,
        }
    }

    /// The word after a number of castings: "castings", "casting",
    /// "figures" or nothing. Stands and companies are refused rather than
    /// read as castings: a stand holds 4 castings or 2 (II.A), so "2
    /// stands" could be 4 castings or 8, and Adjutant does not guess.
    fn castings_word(&mut self) -> PResult<()> {
        if self.at_any(
            0,
            &["stands", "stand", "companies", "company", "bases", "base"],
        ) {
            let what = self.word_at(0).unwrap_or_default().to_string();
            return Err(self.err(format!(
                "count in castings, not {what}: a stand may hold 2 castings or 4, so write e.g. '8 castings'"
            )));
        }
        self.eat_any(&["castings", "casting", "figures", "figure"]);
        Ok(())
    }

    /// One share of a split fire (APSoF V.F.2).
    fn fire_share(&mut self) -> PResult<FireShare> {
        const CASTINGS: &[&str] = &["castings", "casting", "stands", "stand"];
        let at = self.here();
        if let Some(n) = self.number() {
            if n == 0.0 {
                return Err(PErr {
                    at,
                    message: "a share of 0 castings fires nothing; give 1 casting or more, or leave that target out".to_string(),
                    suggestions: Vec::new(),
                });
            }
            if n.fract() != 0.0 || !(1.0..=10_000.0).contains(&n) {
                return Err(PErr {
                    at,
                    message: format!(
                        "{n} is not a number of castings; give a whole number such as 8"
                    ),
                    suggestions: Vec::new(),
                });
            }
            self.castings_word()?;
            return Ok(FireShare::Castings(n as u32));
        }
        if self.eat_words(&["the", "other", "half"])
            || self.eat_words(&["the", "rest"])
            || self.eat_words(&["the", "remainder"])
            || self.eat_words(&["the", "others"])
            || self.eat_words(&["the", "remaining"])
            || self.eat_word("rest")
            || self.eat_word("remainder")
        {
            self.eat_any(CASTINGS);
            return Ok(FireShare::Rest);
        }
        if self.eat_word("half") {
            // "half of its castings", "half its men".
            self.eat_word("of");
            self.eat_any(&["its", "their", "your", "the"]);
            self.eat_any(&["castings", "men"]);
            return Ok(FireShare::Half);
        }
        Err(self.expected("a share of the castings: a number ('8 castings'), 'half' or 'the rest'"))
    }

    /// The parts of a split fire (APSoF V.F.2): "8 castings at the 5th
    /// Tennessee and the rest at the battery", "half at X, half at Y". The
    /// list reads its own "and" and "," when another share follows, so they
    /// are not taken for step separators.
    fn fire_parts(&mut self) -> PResult<Vec<FirePart>> {
        let mut parts: Vec<(usize, usize, FirePart)> = Vec::new();
        loop {
            let at = self.here();
            let share = self.fire_share()?;
            if self.eat_any(&["at", "on", "upon", "into"]).is_none() {
                let (e1, _) = self.ctx.example_enemies();
                return Err(self.expected(&format!(
                    "'at' and a target after the share, as in '8 castings at {e1}'"
                )));
            }
            let target_at = self.here();
            let target = self.fire_target()?;
            parts.push((at, target_at, FirePart { share, target }));
            let save = self.pos;
            let comma = self.eat_punct(',');
            let and = self.eat_word("and") || self.eat_punct('&');
            if (comma || and) && self.share_at(0) {
                continue;
            }
            self.pos = save;
            break;
        }
        self.check_split(&parts)?;
        Ok(parts.into_iter().map(|(_, _, p)| p).collect())
    }

    /// What a split fire (APSoF V.F.2) may not be, each part given with
    /// where its share and its target were written. The commander splits
    /// "in any manner desired", but not into shares that cannot all be
    /// given: more castings than the unit has, "the rest" twice or alone,
    /// more than two halves, or one target twice.
    fn check_split(&self, parts: &[(usize, usize, FirePart)]) -> PResult<()> {
        let refuse = |at: usize, message: String| PErr {
            at,
            message,
            suggestions: Vec::new(),
        };
        if let [(at, _, p)] = parts
            && p.share == FireShare::Rest
        {
            return Err(refuse(
                *at,
                "'the rest' needs another part before it; to fire with every casting write 'fire at ...'"
                    .to_string(),
            ));
        }
        let (mut rests, mut halves, mut castings) = (0, 0, 0u64);
        for (k, (at, target_at, p)) in parts.iter().enumerate() {
            match p.share {
                FireShare::Rest => {
                    rests += 1;
                    if rests > 1 {
                        return Err(refuse(
                            *at,
                            "only one part can take 'the rest'; give the others a number of castings or 'half'"
                                .to_string(),
                        ));
                    }
                }
                FireShare::Half => {
                    halves += 1;
                    if halves > 2 {
                        return Err(refuse(
                            *at,
                            "a unit has only two halves; give the other parts a number of castings or 'the rest'"
                                .to_string(),
                        ));
                    }
                }
                FireShare::Castings(n) => {
                    castings += u64::from(n);
                    let has = self.unit.map(|u| u.castings).unwrap_or(0);
                    if castings > u64::from(has) {
                        let name = self
                            .unit
                            .map(|u| self.unit_called(u.id))
                            .unwrap_or_default();
                        return Err(refuse(
                            *at,
                            format!(
                                "the shares come to {castings} castings but {name} has {has}; give at most {has} in all, or 'the rest' for what is left"
                            ),
                        ));
                    }
                }
            }
            let earlier = parts.get(..k).unwrap_or_default();
            if earlier.iter().any(|(_, _, q)| q.target == p.target) {
                let whom = match p.target {
                    FireTarget::Unit(u) => self.unit_called(u),
                    FireTarget::NearestOf(_) => "the nearest enemy of that kind".to_string(),
                    FireTarget::AtWill => "fire at will".to_string(),
                };
                return Err(refuse(
                    *target_at,
                    format!(
                        "{whom} is already the target of another part; give each target one share"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// "split fire: 10 castings at the 5th Tennessee, 6 at the nearest enemy
    /// battery", "split its fire between the 5th Tennessee and Ridley's
    /// Battery" (APSoF V.F.2; "between" two targets is half and the rest).
    fn split_fire(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        self.eat_any(&["its", "their", "your", "the"]);
        self.eat_any(&["fire", "fires", "firing"]);
        self.eat_any(&["evenly", "equally"]);
        let parts = if self.eat_any(&["between", "among", "amongst"]).is_some() {
            let first_at = self.here();
            let first = self.fire_target()?;
            if !(self.eat_word("and") || self.eat_punct(',')) {
                let (e1, e2) = self.ctx.example_enemies();
                return Err(self.expected(&format!(
                    "'and' and a second target, as in 'split its fire between {e1} and {e2}'"
                )));
            }
            let second_at = self.here();
            let second = self.fire_target()?;
            // A third target cannot be an even share: say how to write it.
            let save = self.pos;
            let sep = self.eat_punct(',') || self.eat_word("and");
            let third_at = self.here();
            if sep
                && self.word_at(0).is_some_and(|w| resolve_verb(w).is_none())
                && !self.share_at(0)
                && self.fire_target().is_ok()
            {
                return Err(PErr {
                    at: third_at,
                    message: "'between' splits the fire in two; for more targets give each its castings, as in 'split fire: 6 castings at ..., 6 at ..., the rest at ...'".to_string(),
                    suggestions: Vec::new(),
                });
            }
            self.pos = save;
            let parts = [
                (
                    first_at,
                    first_at,
                    FirePart {
                        share: FireShare::Half,
                        target: first,
                    },
                ),
                (
                    second_at,
                    second_at,
                    FirePart {
                        share: FireShare::Rest,
                        target: second,
                    },
                ),
            ];
            self.check_split(&parts)?;
            parts.into_iter().map(|(_, _, p)| p).collect()
        } else {
            self.eat_punct(':');
            self.eat_punct(',');
            if !self.share_at(0) {
                let (e1, _) = self.ctx.example_enemies();
                return Err(self.expected(&format!(
                    "the shares, as in 'split fire: 10 castings at {e1}, 6 at the nearest enemy battery', or 'between' two targets"
                )));
            }
            self.fire_parts()?
        };
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::SplitFire { parts },
        });
        Ok(())
    }

    /// "combine fire with the 12th Ohio at the 5th Tennessee", "combine its
    /// fire with ..." (APSoF V.F.1). Without "fire", "combine with" is
    /// VII.C's joining of two units ([`Self::combine`]).
    fn combine_fire(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        self.eat_any(&["its", "their", "your", "the"]);
        self.eat_any(&["fire", "fires", "firing"]);
        let (target, with) = self.fire_body()?;
        let Some(with) = with else {
            let partner = self
                .ctx
                .example_other_unit(self.unit.map(|u| u.id))
                .unwrap_or_else(|| "another of your units".to_string());
            return Err(self.expected(&format!(
                "'with' and the units you command to fire together, as in 'combine fire with {partner}'"
            )));
        };
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::FireWith {
                target: target.unwrap_or(FireTarget::AtWill),
                with,
            },
        });
        Ok(())
    }

    /// Whom to fire at: "will", "the enemy", "the nearest enemy battery", or
    /// a visible enemy unit by name.
    fn fire_target(&mut self) -> PResult<FireTarget> {
        if self.eat_word("will") || self.eat_word("anything") || self.eat_word("them") {
            return Ok(FireTarget::AtWill);
        }
        // "fire at whatever comes out of the woods", "at anyone who shows
        // himself": no one target, so at will — at what comes into its
        // fire zone (APSoF V.C); the rest of the clause says which, and is
        // colour.
        if self.at_any(
            0,
            &["whatever", "whoever", "anyone", "anybody", "everything"],
        ) {
            let start = self.here();
            while !self.at_end() && !self.at_separator() && !self.at_word("then") {
                self.pos += 1;
            }
            let said = self.written(start, self.last_end());
            self.note(format!(
                "'{said}' read as: fire at will, at what comes into its fire zone"
            ));
            return Ok(FireTarget::AtWill);
        }
        self.skip_to_marked_designation();
        if let Some(u) = self.designation_a() {
            return Ok(FireTarget::Unit(u));
        }
        // "the regiment to our front": one unit, chosen now.
        let save = self.pos;
        let at = self.here();
        if let Some(d) = self.enemy_description() {
            if d.front || d.near.is_some() {
                return Ok(FireTarget::Unit(self.described_enemy(&d, at)?));
            }
            self.pos = save;
        }
        self.eat_any(&["the", "any"]);
        let nearest = self.eat_any(&["nearest", "closest"]).is_some();
        let enemy = self.eat_enemy_word();
        // "enemy G", "target G": a letter the side has not given.
        if (enemy || self.at_word("target"))
            && !self.ctx.enemy_names.known()
            && let Some(letter) = self.unknown_letter_at(usize::from(self.at_word("target")))
        {
            self.pos += usize::from(self.at_word("target"));
            return Err(self.err(format!(
                "no enemy in sight is lettered {letter}; {}: fire at one by its letter, or 'at will'",
                self.in_sight_hint()
            )));
        }
        // "horse battery", "field guns": artillery.
        if self.at_any(
            0,
            &["horse", "field", "rifled", "light", "heavy", "smoothbore"],
        ) && self.at_any(1, &["battery", "batteries", "guns", "artillery", "section"])
        {
            self.pos += 1;
        }
        // "enemy B", "enemy battery C": a designation, read as a name below.
        let lettered = enemy
            && (self.designation_at(0)
                || (self.word_at(0).is_some_and(|w| {
                    matches!(w, "battery" | "regiment" | "cavalry" | "infantry" | "horse")
                }) && self.designation_at(1)));
        if !lettered && (enemy || nearest) {
            let arm = match self.word_at(0) {
                Some("battery" | "batteries" | "guns" | "gun" | "artillery" | "cannon") => {
                    Some(Arm::Artillery)
                }
                Some("infantry" | "regiment" | "regiments" | "foot" | "line") => {
                    Some(Arm::Infantry)
                }
                Some("cavalry" | "horse" | "horsemen" | "troopers") => Some(Arm::Cavalry),
                _ => None,
            };
            if arm.is_some() {
                self.pos += 1;
            }
            return Ok(arm.map(FireTarget::NearestOf).unwrap_or(FireTarget::AtWill));
        }
        self.pos = save;
        let enemies = self.ctx.visible_enemy_units();
        let hint = self.in_sight_hint();
        let u = self.need_name(&enemies, &|s| {
            format!(
                "no enemy unit in sight is called {s}; {hint}: fire at one of them, or 'at will'"
            )
        })?;
        Ok(FireTarget::Unit(u))
    }

    fn hold(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let verb = self.word_at(0).unwrap_or_default();
        self.pos += 1;
        let fire_words = |p: &mut Self| {
            p.eat_any(&["fire", "firing"]).is_some()
                || p.eat_words(&["your", "fire"])
                || p.eat_words(&["their", "fire"])
                || p.eat_words(&["the", "fire"])
        };
        if verb == "stay" {
            // "stay put": hold.
            self.eat_word("put");
        }
        // "rally, stay lying down", "keep down": lie down (APSoF III.J).
        if matches!(verb, "stay" | "remain" | "keep")
            && (self.at_words(&["lying", "down"])
                || self.at_words(&["laying", "down"])
                || self.at_words(&["down"])
                || self.at_words(&["prone"]))
        {
            let start = self.here();
            self.eat_any(&["lying", "laying"]);
            self.eat_any(&["down", "prone"]);
            Self::push(steps, Trigger::Then, Action::LieDown);
            let said = self.written(start, self.last_end());
            self.note(format!("'{verb} {said}' read as: lie down (APSoF III.J)"));
            return Ok(());
        }
        // "halt in the edge of the woods", "halt at the fence": go there
        // and hold (as "hold the fence").
        if matches!(verb, "halt" | "stop")
            && self.at_any(0, &["in", "at"])
            && !COLOUR.iter().any(|c| self.at_words(c))
            && !TAILS.iter().any(|c| self.at_words(c))
        {
            let save = self.pos;
            let inside = self.at_word("in");
            self.pos += 1;
            self.halting_in = inside;
            let held = self.held_place(steps);
            self.halting_in = false;
            if held? {
                return Ok(());
            }
            self.pos = save;
        }
        // "hold - fire at will": a dash between them is a stop (the lexer
        // reads dashes as spaces), so this is hold, then fire.
        let dash_after = self
            .toks
            .get(self.pos.wrapping_sub(1))
            .zip(self.toks.get(self.pos))
            .and_then(|(a, b)| self.text.get(a.end..b.start))
            .is_some_and(|gap| gap.contains(['-', '\u{2013}', '\u{2014}']));
        if (verb == "hold" || verb == "stop") && !dash_after && fire_words(self) {
            // "hold their fire until they reach the enemy" governs the move
            // before it, so it goes before that move (APSoF I.C.2 ex. iii).
            let governs = self.at_word("until");
            let last_move = steps
                .iter()
                .rposition(|s| matches!(s.action, Action::Move(_) | Action::Charge { .. }));
            match last_move {
                Some(i) if governs => {
                    let trigger = steps.get(i).map(|s| s.trigger).unwrap_or_default();
                    if let Some(s) = steps.get_mut(i) {
                        s.trigger = Trigger::Then;
                    }
                    steps.insert(
                        i,
                        Step {
                            trigger,
                            action: Action::HoldFire,
                        },
                    );
                }
                _ => steps.push(Step {
                    trigger: Trigger::Then,
                    action: Action::HoldFire,
                }),
            }
            return Ok(());
        }
        self.hold_rest(steps)
    }

    /// What may follow "hold"/"wait": the ground held, a formation and a
    /// facing ("wait in line, facing the woods").
    fn hold_rest(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let grounds: &[&[&str]] = &[
            &["your", "position"],
            &["the", "position"],
            &["position"],
            &["your", "ground"],
            &["the", "ground"],
            &["ground"],
            &["the", "line"],
            &["here"],
            &["fast"],
            &["in", "place"],
            &["in", "reserve"],
            &["as", "a", "reserve"],
            &["in", "position"],
            &["where", "you", "are"],
            &["this", "position"],
            &["this", "ground"],
            &["this", "line"],
            &["this", "place"],
            &["your", "line"],
            &["its", "ground"],
            &["your", "present", "position"],
            &["where", "it", "is"],
            &["where", "they", "are"],
            &["where", "it", "stands"],
            &["where", "you", "stand"],
            &["its", "present", "position"],
            &["the", "present", "position"],
            &["present", "position"],
            &["our", "position"],
            &["its", "position"],
            &["their", "ground"],
            &["their", "position"],
            &["it"],
            &["there"],
            &["firm"],
            &["steady"],
        ];
        let before_grounds = self.pos;
        for g in grounds {
            if self.eat_words(g) {
                break;
            }
        }
        // "its present ground", "your present position", "the present line".
        if self.pos == before_grounds {
            let save = self.pos;
            self.eat_any(&["your", "its", "their", "our", "the", "this", "his"]);
            self.eat_any(&["present", "current", "own", "same"]);
            // "hold positon": one slip of the pen in 'position'.
            let slip = self
                .word_at(0)
                .is_some_and(|w| strsim::damerau_levenshtein(w, "position") == 1);
            if slip {
                self.pos += 1;
            } else if self
                .eat_any(&["ground", "position", "line", "place", "post", "station"])
                .is_none()
            {
                self.pos = save;
            }
        }
        // "hold on", but not "hold on arrival".
        if self.at_word("on")
            && self.toks.get(self.pos + 1).is_none_or(|t| {
                !matches!(t.tok, Tok::Word(_)) || t.is_word("and") || t.is_word("then")
            })
        {
            self.pos += 1;
        }
        if self.held_place(steps)? {
            return Ok(());
        }
        let formation = self.formation_words_after_in();
        let facing = self.optional_facing()?;
        if let Some(d) = &facing {
            self.track_facing(d);
        }
        match (formation, facing) {
            (Some(formation), facing) => steps.push(Step {
                trigger: Trigger::Then,
                action: Action::Form { formation, facing },
            }),
            (None, Some(d)) => steps.push(Step {
                trigger: Trigger::Then,
                action: Action::Face(d),
            }),
            (None, None) => {}
        }
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Hold,
        });
        Ok(())
    }

    /// "split off 6 castings as the 2nd Wisconsin skirmishers" (APSoF VII).
    fn split(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.require_split_option()?;
        self.eat_any(&["off", "into"]);
        let Some(n) = self.number() else {
            return Err(
                self.expected("the number of castings to split off, e.g. 'split off 6 castings'")
            );
        };
        let castings = self.unit.map(|u| u.castings).unwrap_or(0);
        if n.fract() != 0.0 || n < 1.0 || n >= f64::from(castings) {
            return Err(self.err(format!(
                "a unit of {castings} castings can split off 1 to {} castings, not {n}",
                castings.saturating_sub(1)
            )));
        }
        self.castings_word()?;
        let new_name = if self.eat_any(&["as", "named", "called"]).is_some() {
            let start = self.here();
            let mut last = start;
            while let Some(t) = self.peek() {
                if matches!(t.tok, Tok::Punct(';' | '.')) || t.is_word("then") {
                    break;
                }
                last = t.end;
                self.pos += 1;
            }
            let written = self.text.get(start..last).unwrap_or("").trim();
            // "as the Ohio Sharpshooters": the article is not the name.
            written
                .strip_prefix("the ")
                .or_else(|| written.strip_prefix("The "))
                .unwrap_or(written)
                .trim()
                .to_string()
        } else {
            String::new()
        };
        // "as skirmishers": the detachment is named for its parent.
        let new_name = if new_name.eq_ignore_ascii_case("skirmishers") {
            format!(
                "{} skirmishers",
                self.unit.map(|u| u.name.as_str()).unwrap_or("unit")
            )
        } else {
            new_name
        };
        let new_name = if new_name.is_empty() {
            format!(
                "{} (detachment)",
                self.unit.map(|u| u.name.as_str()).unwrap_or("unit")
            )
        } else {
            new_name
        };
        // With VII.E skirmishers but not VII.C, only skirmish lines split off.
        if !self.ctx.state.options.advanced_organization
            && !crate::rules::iron_brigade::turn::reorganize::is_skirmish_name(&new_name)
        {
            return Err(self.err(format!(
                "only skirmishers split off in this game (scenario option skirmishers, not split-units); \
                 write 'split off {n} castings as skirmishers'"
            )));
        }
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Split {
                castings: n as u32,
                new_name,
            },
        });
        Ok(())
    }

    fn combine(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.require_split_option()?;
        self.eat_any(&["with", "into"]);
        let own = self.ctx.own_units();
        let me = self.unit.map(|u| u.id);
        let with = self.need_name(&own, &|s| {
            format!("no unit of your side is called {s}; combine with one of your own units")
        })?;
        if Some(with) == me {
            return Err(self.err("a unit cannot combine with itself; name another of your units"));
        }
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Combine { with },
        });
        Ok(())
    }

    fn require_split_option(&self) -> PResult<()> {
        let o = &self.ctx.state.options;
        if o.advanced_organization || o.skirmishers {
            Ok(())
        } else {
            Err(self.err(
                "splitting and combining units is not in use in this game (scenario options split-units, skirmishers)",
            ))
        }
    }

    // ------------------------------------------------------------ player vocabulary (issue #15)
    //
    // Verbs outside the fixed list, each read as one of the engine's
    // actions with a note for the receipt saying what it became; colour
    // kept as colour; the period's names for the enemy; and the orders a
    // unit of its kind cannot be given.

    fn note(&mut self, n: impl Into<String>) {
        let n = n.into();
        if !self.notes.contains(&n) {
            self.notes.push(n);
        }
    }

    /// The text of the mail between two byte offsets, trimmed.
    fn written(&self, from: usize, to: usize) -> String {
        self.text.get(from..to).unwrap_or("").trim().to_string()
    }

    /// Byte offset just past the last token read.
    fn last_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|k| self.toks.get(k))
            .map(|t| t.end)
            .unwrap_or(self.end)
    }

    fn note_colour(&mut self, start: usize, end: usize) {
        let w = self.written(start, end);
        if !w.is_empty() {
            self.note(format!("'{w}' kept as colour, not an order"));
        }
    }

    /// A colour phrase ("at all costs", "with vigour", "to the last man"):
    /// eaten and noted.
    /// "lie down. Keep the men quiet and let them have their rest.": a
    /// sentence after an order that tells the officer how to keep his men,
    /// not what the unit does: colour, to the end of the sentence.
    fn colour_sentence(&mut self) -> bool {
        const OPENERS: &[&[&str]] = &[
            &["keep", "the", "men"],
            &["keep", "your", "men"],
            &["keep", "them", "quiet"],
            &["keep", "them", "steady"],
            &["keep", "them", "in", "hand"],
            &["let", "the", "men"],
            &["let", "them", "rest"],
            &["let", "them", "have"],
            &["tell", "the", "men"],
            &["see", "that", "the", "men"],
            &["the", "men", "are", "to"],
        ];
        let start = self.here();
        if !OPENERS.iter().any(|p| self.at_words(p)) {
            return false;
        }
        while let Some(t) = self.peek() {
            if t.is_punct('.') || t.is_punct(';') || t.is_punct('!') {
                break;
            }
            self.pos += 1;
        }
        let end = self.last_end();
        self.note_colour(start, end);
        true
    }

    /// "dont straggle", "we must not leave a gap by the farm", "never mind
    /// the guns": a clause after an order, in the first person or
    /// negative, with no verb of the order language in it, tells why or
    /// how, not what the unit does: colour, to the end of the sentence,
    /// and the receipt says so. One with such a verb ("do not fire") is
    /// read as an order.
    fn aside(&mut self) -> bool {
        let opens = self.at_any(
            0,
            &[
                "dont", "don't", "never", "we", "i", "our", "us", "lets", "let's", "mind",
            ],
        ) || self.at_words(&["do", "not"])
            || self.at_words(&["no", "straggling"]);
        if !opens {
            return false;
        }
        let start = self.here();
        let save = self.pos;
        let mut k = self.pos;
        while let Some(t) = self.toks.get(k) {
            if matches!(t.tok, Tok::Punct('.' | ';' | '!' | '?')) {
                break;
            }
            if t.word().is_some_and(|w| {
                is_verb_word(w) && !matches!(w, "get" | "go" | "stay" | "hold" | "stand")
            }) {
                self.pos = save;
                return false;
            }
            k += 1;
        }
        self.pos = k;
        let end = self.last_end();
        self.note_colour(start, end);
        true
    }

    /// "... beside the 26th? Thanks, Lawton", "hold. thx - G": a sign-off
    /// on the line of the last order: eaten to the end of the line and
    /// noted. Whether there was one.
    fn sign_off(&mut self) -> bool {
        let save = self.pos;
        while self
            .toks
            .get(self.pos)
            .is_some_and(|t| matches!(t.tok, Tok::Punct('?' | '!' | '.' | ',')))
        {
            self.pos += 1;
        }
        if self.at_end() && self.pos > save {
            // A question mark closing the order.
            return true;
        }
        let start = self.here();
        let closing = self.at_any(0, &["thanks", "thx", "cheers", "regards", "ty", "ta"])
            || self.at_words(&["thank", "you"])
            || self.at_words(&["that's", "all"])
            || self.at_words(&["thats", "all"])
            || self.at_words(&["that's", "it"])
            || self.at_words(&["thats", "it"]);
        if !closing {
            self.pos = save;
            return false;
        }
        let mut end = self.last_end().max(start);
        while let Some(t) = self.toks.get(self.pos) {
            let gap = self.text.get(end..t.start).unwrap_or("");
            if gap.contains('\n') && self.pos > 0 && t.start > start {
                break;
            }
            end = t.end;
            self.pos += 1;
        }
        let said = self.written(start, end);
        self.note(format!("'{said}' read as a sign-off, not an order"));
        true
    }

    fn colour(&mut self) -> bool {
        let start = self.here();
        if COLOUR.iter().any(|p| self.eat_words(p)) {
            let end = self.last_end();
            self.note_colour(start, end);
            return true;
        }
        false
    }

    /// Whether the writer's side is the Confederate one, by its name.
    fn writer_is_confederate(&self) -> Option<bool> {
        let name = self
            .ctx
            .state
            .sides
            .iter()
            .find(|s| s.id == self.ctx.side)?
            .name
            .to_lowercase();
        if ["confeder", "rebel", "csa", "south"]
            .iter()
            .any(|k| name.contains(k))
        {
            Some(true)
        } else if ["union", "federal", "usa", "north"]
            .iter()
            .any(|k| name.contains(k))
        {
            Some(false)
        } else {
            None
        }
    }

    /// "enemy", or a period nickname for the other side ("reb", "secesh",
    /// "johnnies", "yankee", "bluebellies"): eaten when it names the
    /// enemy. A nickname for the writer's own side is not an enemy word.
    fn eat_enemy_word(&mut self) -> bool {
        if self
            .eat_any(&["enemy", "enemies", "enemys", "enemy's"])
            .is_some()
        {
            return true;
        }
        let Some(w) = self.word_at(0) else {
            return false;
        };
        let Some(&(_, confederate)) = NICKNAMES.iter().find(|(n, _)| *n == w) else {
            return false;
        };
        if self.writer_is_confederate() == Some(confederate) {
            return false;
        }
        self.pos += 1;
        true
    }

    /// Where a described enemy is: "in front of Stony Ridge", "near the
    /// farm", "on the ridge", "in the orchard". A phrase that names no
    /// place is left unread; "in front of us" is the unit's front.
    fn description_place(&mut self) -> (Option<Pos>, Option<PlaceRef>) {
        if self.depth >= 4 || self.at_trigger() {
            return (None, None);
        }
        let save = self.pos;
        // "the reb battery up on the ridge", "over by the farm".
        if self.at_any(0, &["up", "down", "over", "out"])
            && self.at_any(1, &["on", "in", "by", "near", "at", "behind", "beyond"])
        {
            self.pos += 1;
        }
        // "the rebels from the orchard" (to drive them out): on it.
        let inside = self.at_any(0, &["on", "in", "inside", "atop", "from"])
            && !self.at_words(&["in", "front"]);
        let ok = (self.eat_words(&["in", "front", "of"]) && !self.at_any(0, &["us", "you", "it"]))
            || self
                .eat_any(&[
                    "near", "beside", "behind", "around", "on", "in", "beyond", "inside", "atop",
                    "by", "from",
                ])
                .is_some()
            || self.eat_words(&["close", "to"])
            || self.eat_words(&["closest", "to"])
            || self.eat_words(&["nearest", "to"])
            || self.eat_any(&["nearest", "closest"]).is_some()
            || {
                // "the enemy column south of the Brawner farm": the
                // enemy nearest that place.
                let before = self.pos;
                let hit = self.compass().is_some() && self.eat_word("of");
                if !hit {
                    self.pos = before;
                }
                hit
            };
        if !ok {
            self.pos = save;
            return (None, None);
        }
        self.depth += 1;
        let from = self.at;
        self.last_place = None;
        let p = self.place(from, true);
        self.depth -= 1;
        match p {
            Ok(p) => {
                let within = self.last_place.and_then(|r| {
                    if !inside {
                        return None;
                    }
                    if self.ctx.outline(r).is_some() {
                        return Some(r);
                    }
                    // A landmark on a hill ("Stony Ridge"): the outermost
                    // contour around it.
                    let PlaceRef::Point(at) = r else {
                        return None;
                    };
                    let hills = &self.ctx.state.terrain.hills;
                    (0..hills.len())
                        .filter(|i| {
                            hills
                                .get(*i)
                                .is_some_and(|h| super::context::inside(&h.outline, at))
                        })
                        .max_by(|a, b| {
                            let area =
                                |i: &usize| hills.get(*i).map_or(0.0, |h| ring_area(&h.outline));
                            area(a).total_cmp(&area(b))
                        })
                        .map(PlaceRef::Hill)
                });
                (Some(p), within)
            }
            Err(_) => {
                self.pos = save;
                (None, None)
            }
        }
    }

    /// Formations, limbering and mounting the unit's kind cannot take
    /// (APSoF III.D: artillery is limbered or unlimbered; III.E–G:
    /// infantry and cavalry formations; III.H: only cavalry mounts), for
    /// the steps one clause wrote.
    fn check_formations(&self, steps: &[Step], at: usize) -> PResult<()> {
        let Some(u) = self.unit else {
            return Ok(());
        };
        let name = self.unit_called(u.id);
        let refuse = |message: String| PErr {
            at,
            message,
            suggestions: Vec::new(),
        };
        for s in steps {
            let formation = match &s.action {
                Action::Form { formation, .. } => Some(*formation),
                Action::Move(m) | Action::Retreat(m) => m.formation,
                Action::Limber if !u.arm.is_artillery() => Some(Formation::Limbered),
                Action::Unlimber { .. } if !u.arm.is_artillery() => Some(Formation::Unlimbered),
                Action::Mount | Action::Dismount if u.arm != Arm::Cavalry => {
                    return Err(refuse(format!(
                        "{name} is not cavalry: only cavalry mounts and dismounts (APSoF III.H)"
                    )));
                }
                _ => None,
            };
            let Some(f) = formation else { continue };
            if f.allowed_for(u.arm) {
                continue;
            }
            return Err(refuse(if u.arm.is_artillery() {
                format!(
                    "{name} is a battery: artillery is either limbered or unlimbered (APSoF III.D), never in {}; write 'limber' to move it or 'unlimber facing ...' to fire",
                    formation_words(f)
                )
            } else {
                format!(
                    "{name} is not artillery: only batteries limber and unlimber (APSoF III.D); write 'form line' or 'form column'"
                )
            }));
        }
        Ok(())
    }

    /// A verb outside the fixed list, read as what the rules can do.
    /// `false` when the word is not one of them.
    fn vocabulary(&mut self, steps: &mut Vec<Step>) -> PResult<bool> {
        let Some(w) = self.word_at(0) else {
            return Ok(false);
        };
        // One letter off a long verb of this list ("suport", "engadge").
        const LONG: &[&str] = &[
            "support", "engage", "follow", "conform", "oblique", "reform",
        ];
        let w = if LONG.contains(&w) || w.chars().count() < 5 {
            w
        } else {
            let close: Vec<&&str> = LONG
                .iter()
                .filter(|v| strsim::damerau_levenshtein(w, v) == 1)
                .collect();
            match close.as_slice() {
                [one] => **one,
                _ => w,
            }
        };
        match w {
            "rally" | "rallies" => self.rally(steps)?,
            "await" | "awaits" | "abide" => self.await_enemy(steps)?,
            "support" | "supports" | "reinforce" | "reinforces" | "relieve" => {
                self.support(steps)?
            }
            "engage" | "engages" => self.engage(steps)?,
            "follow" | "follows" | "conform" | "conforms" => self.follow(steps)?,
            "take" | "seek" | "find" if self.at_any(1, &["cover", "shelter"]) => {
                self.take_cover(steps)?
            }
            // "seek the shelter of Brawner's woods", "take the cover of
            // the fence".
            "take" | "seek" | "find" | "gain"
                if self.at_word_k(1, "the") && self.at_any(2, &["cover", "shelter"]) =>
            {
                self.pos += 1;
                self.take_cover(steps)?
            }
            // "keep lying down", "remain lying down": lie down (it stays
            // down until ordered up, APSoF III.J).
            "keep" | "remain" | "stay" | "continue"
                if self.at_any(1, &["lying", "laying"]) && self.at_any(2, &["down", "low"]) =>
            {
                self.pos += 3;
                if let Some(p) = self.lying_place()? {
                    Self::push(steps, Trigger::Then, Self::move_to(p));
                    Self::push(steps, Trigger::OnArrival, Action::LieDown);
                } else {
                    Self::push(steps, Trigger::Then, Action::LieDown);
                }
                self.note("'keep lying down' read as: lie down");
            }
            // "switch to canister", "load canister": Iron Brigade does not
            // choose the round; the charts give fire by range (APSoF V,
            // XIII).
            "switch" | "load" | "use"
                if {
                    let k = usize::from(self.at_any(1, &["to", "with"]));
                    self.at_any(
                        1 + k,
                        &[
                            "canister",
                            "grape",
                            "grapeshot",
                            "case",
                            "shell",
                            "shot",
                            "double",
                        ],
                    )
                } =>
            {
                let start = self.here();
                self.pos += 1;
                self.eat_any(&["to", "with"]);
                self.eat_any(&["double", "spherical", "solid"]);
                self.pos += 1;
                self.eat_word("shot");
                let end = self.last_end();
                let said = self.written(start, end);
                if !steps.is_empty() || self.at_separator() || self.at_end() {
                    self.note(format!(
                        "'{said}' kept as colour: the rules do not choose the round, the fire charts give fire by range (APSoF V, XIII)"
                    ));
                    if steps.is_empty()
                        && (self.at_end() || !self.fire_words_ahead_after_separator())
                    {
                        Self::push(steps, Trigger::Then, Action::Fire(FireTarget::AtWill));
                    }
                } else {
                    return Ok(false);
                }
            }
            "shift" | "oblique" | "sidestep" | "edge" => self.shift(steps)?,
            "close" if self.at_any(1, &["up", "ranks"]) => self.close_up(steps)?,
            "throw" | "send" | "put" | "push" if self.skirmishers_ahead() => {
                self.throw_out_skirmishers(steps)?
            }
            "counter" if self.at_any(1, &["battery", "batteries"]) => self.shell(steps)?,
            "counterbattery" | "shell" | "bombard" | "cannonade" | "canister" | "grape"
            | "grapeshot" | "shrapnel" => self.shell(steps)?,
            "take" | "occupy" | "seize" | "secure" | "gain" | "man" | "line"
                if self.position_ahead() =>
            {
                self.take_position(steps)?
            }
            "reform" | "redress" => self.reform(steps)?,
            "refuse" | "refuses" | "bend" | "throw" if self.refuse_ahead() => {
                self.refuse_flank(steps)?
            }
            "extend" | "prolong" => {
                // "extend the line to the left of the 2nd": form there.
                self.pos += 1;
                self.eat_any(&["the", "our", "your", "its"]);
                self.eat_any(&["line", "front"]);
                self.eat_any(&["to", "on"]);
                self.eat_word("the");
                let side = self.eat_any(&["left", "right"]);
                let Some(side) = side else {
                    return Err(self.expected(&format!(
                        "'to the left of' or 'to the right of' a unit or place after 'extend', as in 'extend the line to the left of {}'",
                        self.ctx.example_other_unit(self.unit.map(|u| u.id)).unwrap_or_else(|| "the 2nd".to_string())
                    )));
                };
                self.eat_any(&["of", "flank"]);
                self.eat_word("of");
                let at = self.here();
                let rel = if side == "left" {
                    Rel::Left
                } else {
                    Rel::Right
                };
                let (p, facing) = self.relative_to(rel, None, at)?;
                let formation = if self.unit.is_some_and(|u| u.arm.is_artillery()) {
                    None
                } else {
                    Some(Formation::Line)
                };
                Self::push(steps, Trigger::Then, Self::move_to(p));
                match formation {
                    Some(formation) => Self::push(
                        steps,
                        Trigger::OnArrival,
                        Action::Form {
                            formation,
                            facing: Some(Direction::Degrees(facing)),
                        },
                    ),
                    None => Self::push(
                        steps,
                        Trigger::OnArrival,
                        Action::Unlimber {
                            facing: Some(Direction::Degrees(facing)),
                        },
                    ),
                }
                self.note(format!(
                    "'extend the line to the {side}' read as: form on that flank"
                ));
            }
            "dress" if self.at_any(1, &["on", "upon", "with", "by"]) => {
                // "dress on the 4th Virginia": beside it, on its nearer
                // flank, as 'close up on'.
                self.pos += 2;
                let (id, name) = self.own_unit_for("dress on")?;
                let (p, side) = self.nearer_flank_of(id)?;
                Self::push(steps, Trigger::Then, Self::move_to(p));
                self.note(format!(
                    "'dress on {name}' read as: advance to its {side}, 1\" from its flank (the nearer flank)"
                ));
            }
            "keep" | "direct" | "concentrate" | "turn" | "train" | "point" | "aim" | "bring"
                if self.fire_words_ahead() =>
            {
                self.aimed_fire(steps)?
            }
            "target" | "targets" if !self.at_end() => {
                self.pos += 1;
                let target = self.fire_target()?;
                Self::push(steps, Trigger::Then, Action::Fire(target));
                self.note("'target' read as: fire at it");
            }
            "keep"
                if self.at_any(1, &["pace", "station", "abreast", "up", "step"])
                    || self.at_words(&["keep", "in", "line", "with"]) =>
            {
                self.keep_pace(steps)?
            }
            "pour" | "volley" | "give" | "deliver" | "delivers" if self.volley_ahead() => {
                self.volley(steps)?
            }
            // "cover the front of the 76th New York", "screen the front of
            // the battery": in front of it (the ruling for 'in front of').
            "cover" | "covers" | "screen" | "screens"
                if self.at_word_k(1, "the")
                    && self.at_word_k(2, "front")
                    && self.at_word_k(3, "of") =>
            {
                let start = self.here();
                self.pos += 4;
                let at = self.here();
                let (p, _) = self.relative_to(Rel::Front, None, at)?;
                Self::push(steps, Trigger::Then, Self::move_to(p));
                let said = self.written(start, self.last_end());
                self.note(format!(
                    "'{said}' read as: advance to in front of it, 2\" ahead of its front rank"
                ));
            }
            "fix" if self.at_any(1, &["bayonets", "bayonet"]) => {
                let start = self.here();
                self.pos += 2;
                let end = self.last_end();
                self.note_colour(start, end);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// "the 7th", "the 26th": a bare ordinal, as comrades call a regiment,
    /// standing for the one unit of the writer's own side with that
    /// number (never an enemy: nothing is read or said about enemies
    /// by number). Two with the number: asked which.
    fn bare_ordinal(&mut self) -> PResult<Option<UnitId>> {
        let save = self.pos;
        let at = self.here();
        self.eat_any(&["the"]);
        let Some(t) = self.peek() else {
            self.pos = save;
            return Ok(None);
        };
        let Tok::Word(w) = &t.tok else {
            self.pos = save;
            return Ok(None);
        };
        let n = super::names::norm_word(w);
        if !n.starts_with('#') || !w.starts_with(|c: char| c.is_ascii_digit()) {
            self.pos = save;
            return Ok(None);
        }
        let mut hits: Vec<(UnitId, String)> = Vec::new();
        for u in &self.ctx.state.units {
            if u.side == self.ctx.side
                && super::names::norm_words(&u.name).contains(&n)
                && !hits.iter().any(|(id, _)| *id == u.id)
            {
                hits.push((u.id, u.name.clone()));
            }
        }
        // Not the start of a longer name ("the 2nd Wisconsin" when only
        // "A" may name it): the number must end the phrase.
        let ends = match self.toks.get(self.pos + 1).map(|t| &t.tok) {
            None | Some(Tok::Punct(_)) => true,
            Some(Tok::Word(w)) => {
                SOFT_STOPS.contains(&w.as_str())
                    || matches!(
                        w.as_str(),
                        "regiment" | "regt" | "battery" | "then" | "and" | "as" | "if" | "so"
                    )
            }
            Some(_) => false,
        };
        if !ends {
            self.pos = save;
            return Ok(None);
        }
        match hits.as_slice() {
            [(one, _)] => {
                self.pos += 1;
                self.eat_any(&["regiment", "regt", "battery"]);
                Ok(Some(*one))
            }
            [] => {
                self.pos = save;
                Ok(None)
            }
            many => Err(PErr {
                at,
                message: format!(
                    "'the {w}' could mean more than one of your units; write the name in full"
                ),
                suggestions: many.iter().map(|(_, n)| n.clone()).collect(),
            }),
        }
    }

    /// A place after "lie down": a relative position ("behind the fence")
    /// or "in", "at", "on" a place. `None` when no place follows.
    fn lying_place(&mut self) -> PResult<Option<Pos>> {
        if self.at_end() || self.at_separator() || self.at_trigger() {
            return Ok(None);
        }
        if self.at_relative() {
            return self.relative_place();
        }
        let save = self.pos;
        if self.eat_any(&["in", "at", "on", "along", "by"]).is_some() {
            let from = self.at;
            match self.place(from, true) {
                Ok(p) => return Ok(Some(p)),
                Err(e) => {
                    self.pos = save;
                    if !COLOUR.iter().any(|c| self.at_words(c)) {
                        return Err(e);
                    }
                }
            }
        }
        self.pos = save;
        Ok(None)
    }

    /// Whether "fire", "firing", "guns" or "pieces" comes within the next
    /// few words, before the end of the clause ("keep up a steady fire",
    /// "direct your fire", "turn the guns on").
    fn fire_words_ahead(&self) -> bool {
        for k in 1..=4 {
            if self
                .toks
                .get(self.pos + k)
                .is_none_or(|t| !matches!(t.tok, Tok::Word(_)))
            {
                return false;
            }
            if self.at_any(
                k,
                &["fire", "firing", "guns", "pieces", "muskets", "rifles"],
            ) {
                return true;
            }
        }
        false
    }

    /// "keep up a steady fire on A", "keep firing", "direct your fire on
    /// regiment D", "concentrate fire on C", "turn the guns on the
    /// battery": fire, at what is named (else, after a fire order of the
    /// same paragraph, colour; else at will).
    fn aimed_fire(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let start = self.here();
        while let Some(w) = self.word_at(0) {
            self.pos += 1;
            if matches!(
                w,
                "fire" | "firing" | "guns" | "pieces" | "muskets" | "rifles"
            ) {
                break;
            }
        }
        let target = if self
            .eat_any(&["on", "at", "upon", "against", "into", "onto"])
            .is_some()
        {
            Some(self.fire_target()?)
        } else {
            None
        };
        let phrase = self.written(start, self.last_end());
        match target {
            Some(t) => {
                Self::push(steps, Trigger::Then, Action::Fire(t));
                self.note(format!("'{phrase}' read as: fire"));
            }
            None if steps
                .iter()
                .any(|s| matches!(s.action, Action::Fire(_) | Action::FireWith { .. })) =>
            {
                self.note_colour(start, self.last_end());
            }
            None => {
                Self::push(steps, Trigger::Then, Action::Fire(FireTarget::AtWill));
                self.note(format!("'{phrase}' read as: fire at will"));
            }
        }
        Ok(())
    }

    /// Whether "take (up) (a) position", "take post", "occupy ...",
    /// "seize ...", "line the fence" start here.
    fn position_ahead(&self) -> bool {
        match self.word_at(0) {
            Some("take") => {
                self.at_any(1, &["position", "post", "station", "possession"])
                    || (self.at_any(1, &["up", "a"])
                        && self.at_any(2, &["position", "post", "station", "a"]))
                    // "take the Douglass house", "take the orchard and hold
                    // it": occupy it.
                    || (self.at_word_k(1, "the")
                        && !self.at_any(2, &["cover", "shelter", "guns", "men", "regiment", "battery", "offensive", "lead", "initiative", "field"]))
            }
            Some("line") => self.at_any(1, &["the"]),
            Some(_) => !self.at_end(),
            None => false,
        }
    }

    /// "take position behind the fence", "take up a position in rear of
    /// the orchard", "take post at the farm", "occupy the Douglass
    /// house", "seize the railroad cut", "line the fence": go there and
    /// stay (a unit that has arrived holds, APSoF I.B.1).
    fn take_position(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let verb = self.word_at(0).unwrap_or_default().to_string();
        self.pos += 1;
        let mut took_post = false;
        if verb == "take" {
            self.eat_any(&["up"]);
            self.eat_any(&["a", "your"]);
            took_post = self
                .eat_any(&["position", "post", "station", "possession"])
                .is_some();
            self.eat_word("of");
        }
        // "take position 100 yards in rear of ...", "on the ridge", "at
        // the farm", "in the orchard".
        if !self.at_relative() && !self.at_number() {
            self.eat_any(&["at", "on", "in", "upon", "along", "near", "by"]);
        }
        let m = self.move_phrase(Gait::March, &verb)?;
        let mut m = m;
        if m.dests.is_empty() && m.vias.is_empty() {
            let from = self.at;
            let p = self.place(from, false)?;
            m.dests.push(p);
            while self.move_modifier(&mut m)? {}
        }
        Self::push(steps, Trigger::Then, Action::Move(m.order()));
        Self::push(steps, Trigger::OnArrival, Action::Hold);
        let what = if verb == "take" && took_post {
            "take position".to_string()
        } else {
            verb
        };
        self.note(format!("'{what}' read as: move there and hold"));
        Ok(())
    }

    /// A unit of the writer's side named here, for 'support', 'follow' and
    /// 'close up on': an enemy's name gets the answer a name of nothing
    /// gets, so nothing about unseen enemies leaks.
    /// A unit of his own side named as a place or partner must still be in
    /// the battle: "rally behind the 2nd Wisconsin" once it is destroyed is
    /// answered, with the units he may name instead (never an enemy: the
    /// answer for those is the one a name of nothing gets).
    fn in_battle(&self, id: UnitId, at: usize) -> PResult<()> {
        let Some(u) = self.ctx.state.unit(id) else {
            return Ok(());
        };
        if u.side != self.ctx.side || !u.out_of_battle() {
            return Ok(());
        }
        let why = if u.marks.combined_into.is_some() {
            "was combined into another unit"
        } else if u.marks.left_field {
            "has gone off the table"
        } else {
            "was destroyed"
        };
        let others: Vec<String> = self
            .ctx
            .state
            .units_of(self.ctx.side)
            .filter(|o| {
                !o.out_of_battle()
                    && self.ctx.commands(o.id)
                    && Some(o.id) != self.unit.map(|s| s.id)
            })
            .map(|o| o.name.clone())
            .take(4)
            .collect();
        Err(PErr {
            at,
            message: format!(
                "the {} {why} and is no longer in the battle, so this order is not taken; name a unit still on the field{}",
                u.name,
                if others.is_empty() {
                    String::new()
                } else {
                    format!(", such as {}", or_list(&others))
                }
            ),
            suggestions: Vec::new(),
        })
    }

    fn own_unit_for(&mut self, verb: &str) -> PResult<(UnitId, String)> {
        let at = self.here();
        let (id, name) = self.own_unit_for_inner(verb)?;
        self.in_battle(id, at)?;
        Ok((id, name))
    }

    fn own_unit_for_inner(&mut self, verb: &str) -> PResult<(UnitId, String)> {
        let save = self.pos;
        self.eat_any(&["the"]);
        let own = self.ctx.own_units();
        let named = self.name(&own);
        self.pos = save;
        let bare = if named == Lookup::NotFound {
            self.bare_ordinal()?
        } else {
            None
        };
        if let Some(id) = bare {
            if Some(id) == self.unit.map(|u| u.id) {
                return Err(self.err(format!(
                    "a unit cannot {verb} itself; name another of your units"
                )));
            }
            return Ok((id, self.unit_called(id)));
        }
        self.eat_any(&["the"]);
        let own = self.ctx.own_units();
        let id = self.need_name(&own, &|s| {
            format!(
                "no unit of your side is called {s}; '{verb}' is for your own side's units (to go at an enemy write 'advance toward B' or 'charge B')"
            )
        })?;
        if Some(id) == self.unit.map(|u| u.id) {
            return Err(self.err(format!(
                "a unit cannot {verb} itself; name another of your units"
            )));
        }
        Ok((id, self.unit_called(id)))
    }

    /// The place beside friendly unit `id` on its flank nearer the ordered
    /// unit ("dress on", "close up on"), and which flank that is.
    fn nearer_flank_of(&self, id: UnitId) -> PResult<(Pos, &'static str)> {
        let left = self.station_on(id, Station::Left)?;
        let right = self.station_on(id, Station::Right)?;
        Ok(nearer_flank(left, right, self.at))
    }

    /// Where the ordered unit stands beside or behind a friendly unit, as
    /// [`Self::relative_place`] rules it: beside is frontages edge to edge
    /// with a 1" interval, behind is 2" between the ranks (the rules give
    /// no supporting distance; docs/orders.md, Rulings).
    fn station_on(&self, id: UnitId, rel: Station) -> PResult<Pos> {
        let Some(friend) = self.ctx.state.unit(id) else {
            return Err(self.err("that unit is no longer on the field"));
        };
        let f = geometry::footprint(friend);
        let (w, d) = self
            .unit
            .map(|u| geometry::formation_size(u, u.formation))
            .unwrap_or((0.0, 0.0));
        Ok(match rel {
            Station::Left => f.to_table(-(f.frontage / 2.0 + w / 2.0 + 1.0), 0.0),
            Station::Right => f.to_table(f.frontage / 2.0 + w / 2.0 + 1.0, 0.0),
            Station::Behind => f.to_table(0.0, -(f.depth / 2.0 + d / 2.0 + 2.0)),
        })
    }

    fn move_to(p: Pos) -> Action {
        Action::Move(MoveOrder {
            waypoints: vec![p],
            by_road: false,
            formation: None,
            gait: Gait::March,
            fire_while_moving: false,
            backwards: false,
        })
    }

    fn push(steps: &mut Vec<Step>, trigger: Trigger, action: Action) {
        steps.push(Step { trigger, action });
    }

    /// "rally", "rally the men", "rally on the colours", "rally behind the
    /// 6th": the unit's standing intention to rally and stay put. Rallying
    /// is not an order in Iron Brigade: a unit below its base morale tries
    /// in every rally phase (APSoF VI.E.1), and one rallying from 0 may not
    /// move that turn (VI.E.2.iv). So it holds (there, if a place is
    /// named).
    fn rally(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        self.eat_words(&["the", "men"]);
        self.eat_any(&["them", "it", "same"]);
        let colours: &[&[&str]] = &[
            &["on", "the", "colours"],
            &["on", "the", "colors"],
            &["on", "the", "flag"],
            &["upon", "its", "colours"],
            &["upon", "its", "colors"],
            &["upon", "the", "colours"],
            &["upon", "the", "colors"],
            &["on", "its", "colours"],
            &["on", "its", "colors"],
            &["on", "their", "colours"],
            &["on", "their", "colors"],
            &["round", "its", "colours"],
            &["round", "the", "colours"],
            &["round", "the", "colors"],
            &["around", "the", "colours"],
            &["around", "the", "colors"],
            &["around", "the", "flag"],
            &["here"],
            &["in", "place"],
            &["where", "they", "are"],
        ];
        colours.iter().any(|c| self.eat_words(c));
        let mut there = String::new();
        if !self.at_end() && !self.at_separator() && !self.at_trigger() {
            let save = self.pos;
            if self.at_word("behind") || self.at_words(&["in", "rear", "of"]) {
                // The place reads "behind ..." itself.
            } else if self
                .eat_any(&["on", "at", "to", "in", "near", "by", "upon"])
                .is_some()
            {
            } else {
                self.pos = save;
            }
            if self.pos != save || self.at_word("behind") || self.at_words(&["in", "rear", "of"]) {
                let from = self.at;
                let p = self.place(from, false)?;
                Self::push(steps, Trigger::Then, Self::move_to(p));
                Self::push(steps, Trigger::OnArrival, Action::Hold);
                there = " there".to_string();
            }
        }
        if there.is_empty() {
            Self::push(steps, Trigger::Then, Action::Hold);
        }
        self.note(format!(
            "'rally' read as: hold{there}; a unit below its base morale tries to rally in every rally phase whatever its orders (APSoF VI.E.1), and one rallying from 0 may not move that turn (VI.E.2.iv)"
        ));
        Ok(())
    }

    /// "await the enemy", "await their attack", "await orders": hold, the
    /// rest is colour (a unit holding fires at enemies in its fire zone,
    /// APSoF I.B.4.i.b).
    fn await_enemy(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let verb_at = self.here();
        self.pos += 1;
        let start = self.here();
        while !self.at_end() && !self.at_separator() && !self.at_trigger() {
            self.pos += 1;
        }
        let what = if self.pos > 0 && start < self.last_end() && self.here() > start {
            self.written(start, self.last_end())
        } else {
            String::new()
        };
        let _ = verb_at;
        Self::push(steps, Trigger::Then, Action::Hold);
        self.note(if what.is_empty() {
            "'await' read as: hold (it fires at enemies in its fire zone, APSoF I.B.4.i.b)"
                .to_string()
        } else {
            format!(
                "'await {what}' read as: hold (it fires at enemies in its fire zone, APSoF I.B.4.i.b)"
            )
        });
        Ok(())
    }

    /// "support the 2nd Wisconsin" [on the left | on the right]: go to 2"
    /// behind it (or beside it on the flank named). The rules give no
    /// supporting distance; this is Adjutant's ruling for "behind" and
    /// "beside" (docs/orders.md, Rulings).
    fn support(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        let (id, name) = self.own_unit_for("support")?;
        // "support Battery B, position on its left flank", "..., posted on
        // its right": where it stands on the supported unit.
        {
            let save = self.pos;
            self.eat_punct(',');
            self.eat_any(&["and"]);
            self.eat_any(&["take"]);
            let posted = self
                .eat_any(&[
                    "position",
                    "posted",
                    "post",
                    "placed",
                    "station",
                    "stationed",
                    "positioned",
                ])
                .is_some();
            if !(posted && self.at_any(0, &["on", "to"])) {
                self.pos = save;
            } else {
                self.eat_word("to");
            }
        }
        // "on the left", "on its right", and "the 2nd Wisconsin's left".
        let rel = if self.eat_words(&["on", "the", "left"])
            || self.eat_words(&["on", "its", "left"])
            || self.eat_words(&["on", "their", "left"])
            || self.eat_word("left")
        {
            self.eat_word("flank");
            Station::Left
        } else if self.eat_words(&["on", "the", "right"])
            || self.eat_words(&["on", "its", "right"])
            || self.eat_words(&["on", "their", "right"])
            || self.eat_word("right")
        {
            self.eat_word("flank");
            Station::Right
        } else {
            self.eat_words(&["from", "behind"]);
            self.eat_words(&["in", "rear"]);
            Station::Behind
        };
        let p = self.station_on(id, rel)?;
        Self::push(steps, Trigger::Then, Self::move_to(p));
        let how = match rel {
            Station::Behind => "2\" behind it",
            Station::Left => "its left, 1\" from its flank",
            Station::Right => "its right, 1\" from its flank",
        };
        self.note(format!(
            "'support {name}' read as: advance to {how}, as it stands now (the rules give no supporting distance; Adjutant's ruling for 'behind' and 'beside')"
        ));
        Ok(())
    }

    /// "engage B", "engage the regiment to our front": fire at it (APSoF
    /// V). Engaging is fire from where the unit stands; a unit fires only
    /// at enemies in its fire zone and range that it can see (V.C), so to
    /// close first the order must say so ("advance toward B, then fire at
    /// B").
    fn engage(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        let target = if self.at_end() || self.at_separator() || self.at_trigger() {
            FireTarget::AtWill
        } else {
            self.fire_target()?
        };
        let with = if self.partners_ahead() {
            Some(self.fire_partners()?)
        } else {
            None
        };
        let action = match with {
            Some(with) => Action::FireWith { target, with },
            None => Action::Fire(target),
        };
        Self::push(steps, Trigger::Then, action);
        self.note(
            "'engage' read as: fire from where it stands (APSoF V: only at enemies it can see in its fire zone and range); to close first write 'advance toward B, then fire at B'",
        );
        Ok(())
    }

    /// "follow the 7th" (2" behind it) or "conform to the 7th" (keeping
    /// the station it has on it now): [`Action::Follow`], resolved each
    /// turn in the movement phase, after the leader has moved.
    fn follow(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let verb = self.word_at(0).unwrap_or_default();
        let conform = verb.starts_with("con") || verb.starts_with("com");
        self.pos += 1;
        if conform {
            self.eat_any(&["to", "with"]);
        } else {
            self.eat_any(&["behind", "after", "on"]);
        }
        let _ = self.eat_words(&["the", "movements", "of"])
            || self.eat_words(&["the", "movement", "of"])
            || self.eat_words(&["the", "moves", "of"]);
        // "15th Ala: follow in column": which unit is not said.
        if self.at_end() || self.at_separator() || self.formation_words_ahead() {
            let example = self
                .ctx
                .own_units()
                .iter()
                .find(|c| Some(c.target) != self.unit.map(|u| u.id) && self.ctx.commands(c.target))
                .map(|c| c.display.clone())
                .unwrap_or_else(|| "the 2nd Wisconsin".to_string());
            return Err(self.err(format!(
                "say which of your units to {}, as in '{} {example} in column'",
                if conform { "conform to" } else { "follow" },
                if conform { "conform to" } else { "follow" }
            )));
        }
        let (id, name) = self.own_unit_for(if conform { "conform to" } else { "follow" })?;
        self.eat_any(&["movements", "movement", "moves", "lead"]);
        // "follow the 7th in column": the formation first.
        if let Some(formation) = self.formation_words_after_in() {
            Self::push(
                steps,
                Trigger::Then,
                Action::Form {
                    formation,
                    facing: None,
                },
            );
        }
        let Some(friend) = self.ctx.state.unit(id) else {
            return Err(self.err("that unit is no longer on the field"));
        };
        let f = geometry::footprint(friend);
        let (right, mut ahead) = if conform {
            f.to_local(self.at)
        } else {
            let p = self.station_on(id, Station::Behind)?;
            f.to_local(p)
        };
        // "follow the 21st Ga at 50 yds": that far behind its centre, as
        // a player lays the tape, never closer than keeps the two clear
        // (the ruling for a distance written with 'behind').
        let mut gap_said = None;
        if !conform
            && self.at_word("at")
            && self
                .toks
                .get(self.pos + 1)
                .is_some_and(|t| matches!(t.tok, Tok::Number(_)))
        {
            self.pos += 1;
            let d = self.distance()?;
            ahead = ahead.min(-d);
            gap_said = Some(d);
        }
        // "follow the 56th in column, 100 yds behind": the gap said after
        // a comma, with 'behind' (or 'in rear') after it.
        if !conform && gap_said.is_none() {
            let save = self.pos;
            self.eat_punct(',');
            if self.at_number() {
                let d = self.distance()?;
                if self.eat_any(&["behind", "back", "rear"]).is_some()
                    || self.eat_words(&["in", "rear"])
                    || self.eat_words(&["to", "the", "rear"])
                {
                    ahead = ahead.min(-d);
                    gap_said = Some(d);
                } else {
                    self.pos = save;
                }
            } else {
                self.pos = save;
            }
        }
        Self::push(
            steps,
            Trigger::Then,
            Action::Follow {
                unit: id,
                right,
                ahead,
            },
        );
        self.note(if conform {
            format!(
                "'conform to {name}' read as: follow its moves, keeping the station it has on it now; each turn it moves after {name}, toward that station where {name} then stands (its own move, APSoF IV.C.3, IV.G)"
            )
        } else {
            format!(
                "'follow {name}' read as: follow its moves {} behind it; each turn it moves after {name}, toward that station where {name} then stands (its own move, APSoF IV.C.3, IV.G)",
                match gap_said {
                    Some(_) => format!("{}\" (from its centre)", show_num(-ahead)),
                    None => "2\"".to_string(),
                }
            )
        });
        Ok(())
    }

    /// "take cover" [in|behind|among place]: lie down (APSoF III.J: units
    /// lying down fire at +2 and may get beneficial modifiers when fired
    /// upon; VI.C.6's "go prone"), at the place named once there.
    fn take_cover(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 2;
        let save = self.pos;
        let place_follows = self.eat_word("of")
            || self.at_word("behind")
            || self
                .eat_any(&["in", "among", "at", "inside", "within", "along"])
                .is_some();
        if place_follows {
            let from = self.at;
            let p = self.place(from, false)?;
            Self::push(steps, Trigger::Then, Self::move_to(p));
            Self::push(steps, Trigger::OnArrival, Action::LieDown);
            self.note(
                "'take cover' read as: go there, then lie down on arrival (APSoF III.J: lying down fires at +2 and may give modifiers when fired upon)",
            );
        } else {
            self.pos = save;
            Self::push(steps, Trigger::Then, Action::LieDown);
            self.note(
                "'take cover' read as: lie down where it is (APSoF III.J: lying down fires at +2 and may give modifiers when fired upon); to reach cover write 'take cover in the woods'",
            );
        }
        Ok(())
    }

    /// "shift 3 inches to the left", "oblique right 2 inches", "shift to
    /// the fence": a move at 45° off the front (APSoF IV.C.3: units move
    /// only in the direction they face; the oblique limit is Adjutant's
    /// ruling), or to a place.
    fn shift(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let verb = self.word_at(0).unwrap_or_default();
        let oblique = verb == "oblique";
        self.pos += 1;
        self.eat_any(&["half"]);
        let side = |p: &mut Self| -> Option<f64> {
            let save = p.pos;
            p.eat_words(&["to", "the"]);
            p.eat_word("its");
            p.eat_word("your");
            if p.eat_word("left") || p.eat_word("l") {
                return Some(-1.0);
            }
            if p.eat_word("right") || p.eat_word("r") {
                return Some(1.0);
            }
            p.pos = save;
            None
        };
        let mut turn = side(self);
        // "oblique L, 3 in".
        if turn.is_some()
            && self.at_punct(',')
            && self
                .toks
                .get(self.pos + 1)
                .is_some_and(|t| matches!(t.tok, Tok::Number(_)))
        {
            self.pos += 1;
        }
        if turn.is_none() && (self.at_word("to") || self.at_word("toward")) {
            self.pos += 1;
            let from = self.at;
            let p = self.place(from, false)?;
            Self::push(steps, Trigger::Then, Self::move_to(p));
            self.note(format!("'{verb}' read as: advance there"));
            return Ok(());
        }
        let limit = crate::rules::iron_brigade::movement::OBLIQUE_LIMIT;
        if !self.at_number() {
            if oblique && let Some(t) = turn {
                // "oblique to the right and advance 4 inches": the moves
                // after it go 45° off the front.
                let more = self.at_separator();
                if more {
                    self.facing = normalize_deg(self.facing + t * limit);
                    self.note(format!(
                        "'oblique to the {}' read as: the moves after it go 45° to the {} of the front (APSoF IV.C.3: units move only the way they face; Adjutant allows up to 45° off the front)",
                        if t < 0.0 { "left" } else { "right" },
                        if t < 0.0 { "left" } else { "right" },
                    ));
                    return Ok(());
                }
            }
            let example = if oblique {
                format!("'{verb} left 3 inches' (a move at 45° off the front, APSoF IV.C.3)")
            } else {
                format!("'{verb} 2 inches to the left'")
            };
            return Err(self.expected(&format!(
                "how far and which way after '{verb}', as in {example}"
            )));
        }
        let from = self.at;
        let n_at = self.pos;
        let inches = self.distance()?;
        if turn.is_none() {
            turn = side(self);
        }
        let Some(t) = turn else {
            // "shift 3 inches" with no side: straight ahead, or a place
            // written after the distance ("shift 2 inches north").
            self.pos = n_at;
            let facing = self.facing;
            let p = self.offset_place(from, facing)?;
            Self::push(steps, Trigger::Then, Self::move_to(p));
            self.note(format!("'{verb}' read as: advance straight ahead"));
            return Ok(());
        };
        let off = if oblique { t * limit } else { t * 90.0 };
        let (dx, dy) = geometry::facing_vector(normalize_deg(self.facing + off));
        let q = Pos::new(from.x + dx * inches, from.y + dy * inches);
        Self::push(steps, Trigger::Then, Self::move_to(q));
        let which = if t < 0.0 { "left" } else { "right" };
        if oblique {
            self.note(format!(
                "'{verb}' read as: advance 45° to the {which} of its front (APSoF IV.C.3: units move only the way they face; Adjutant allows up to 45° off the front)"
            ));
        } else {
            self.note(format!(
                "'{verb}' read as: move {} inches to its {which}, to {}; it turns to face that way to move and keeps that facing (APSoF IV.C.3: units move only the way they face)",
                show_num(inches),
                show_pos(q)
            ));
        }
        Ok(())
    }

    /// Whether the word `k` ahead names a formation ("line", "column").
    /// "in column", "in line" here.
    fn formation_words_ahead(&self) -> bool {
        self.at_word("in") && self.formation_word_at(1)
    }

    fn formation_word_at(&self, k: usize) -> bool {
        self.at_any(
            k,
            &[
                "line",
                "column",
                "col",
                "skirmish",
                "skirmishers",
                "company",
                "mass",
                "en",
            ],
        )
    }

    /// Whether a fire order follows the separator here ("switch to
    /// canister, fire at A").
    fn fire_words_ahead_after_separator(&self) -> bool {
        let mut k = 0;
        while self.toks.get(self.pos + k).is_some_and(|t| {
            matches!(t.tok, Tok::Punct(',' | ';' | '&')) || t.is_word("and") || t.is_word("then")
        }) {
            k += 1;
        }
        self.at_any(k, &["fire", "open", "shell", "engage", "shoot"])
    }

    /// "close up" (form line: the closed order of APSoF III.E, III.G.1,
    /// from skirmish order or en masse), "close up on the 6th" (beside it,
    /// on its nearer flank).
    fn close_up(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 2;
        // "close up behind the 21st NC": to its station behind it.
        if self.at_word("behind") {
            self.pos += 1;
            let (id, name) = self.own_unit_for("close up behind")?;
            let p = self.station_on(id, Station::Behind)?;
            Self::push(steps, Trigger::Then, Self::move_to(p));
            self.note(format!(
                "'close up behind {name}' read as: advance to its station 2\" behind it"
            ));
            return Ok(());
        }
        if self.eat_any(&["on", "to", "with", "upon"]).is_some() {
            let (id, name) = self.own_unit_for("close up on")?;
            let (p, side) = self.nearer_flank_of(id)?;
            Self::push(steps, Trigger::Then, Self::move_to(p));
            self.note(format!(
                "'close up on {name}' read as: advance to its {side}, 1\" from its flank (the nearer flank; Adjutant's ruling for 'beside')"
            ));
            return Ok(());
        }
        if self.unit.is_some_and(|u| u.arm.is_artillery()) {
            return Err(self.err(
                "a battery has no ranks to close (APSoF III.D: limbered or unlimbered); write 'limber' or 'unlimber facing ...'",
            ));
        }
        let facing = self.optional_facing()?;
        Self::push(
            steps,
            Trigger::Then,
            Action::Form {
                formation: Formation::Line,
                facing,
            },
        );
        self.note("'close up' read as: form line (closed order, APSoF III.E, III.G.1)");
        Ok(())
    }

    /// "reform" [in line | into column] [facing ...]: a formation change;
    /// without a formation, line (APSoF III.G.1, the base formation; III.G.5
    /// calls en masse the confused state units reform from).
    fn reform(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        self.eat_any(&["the", "its", "their", "it", "them"]);
        self.eat_any(&["ranks", "line", "lines", "unit", "regiment"]);
        if self.unit.is_some_and(|u| u.arm.is_artillery()) {
            return Err(self.err(
                "a battery has no formation to reform (APSoF III.D: limbered or unlimbered); write 'limber' or 'unlimber facing ...'",
            ));
        }
        let f = self.formation_words_after_in().or_else(|| {
            self.eat_any(&["as"]);
            self.formation()
        });
        let mut facing = self.optional_facing()?;
        // "reform behind the 7th", "reform at the farm": go there, then
        // form on arrival.
        let save = self.pos;
        let place = if self.at_relative() {
            self.relative_place()?
        } else if self.eat_any(&["at", "on", "near", "by"]).is_some() {
            let from = self.at;
            match self.place(from, true) {
                Ok(p) => Some(p),
                Err(_) => {
                    self.pos = save;
                    None
                }
            }
        } else {
            None
        };
        let trigger = match place {
            Some(p) => {
                Self::push(steps, Trigger::Then, Self::move_to(p));
                if facing.is_none() {
                    facing = self.optional_facing()?;
                }
                Trigger::OnArrival
            }
            None => Trigger::Then,
        };
        Self::push(
            steps,
            trigger,
            Action::Form {
                formation: f.unwrap_or(Formation::Line),
                facing,
            },
        );
        if f.is_none() {
            self.note(
                "'reform' read as: form line (APSoF III.G.1, the base formation; III.G.5: en masse is the confused state units reform from)",
            );
        }
        Ok(())
    }

    /// "hold the fence line", "hold the Brawner farm": go there if not
    /// there already, and hold on arrival. `false` (nothing read) when no
    /// place follows.
    fn held_place(&mut self, steps: &mut Vec<Step>) -> PResult<bool> {
        if self.at_end() || self.at_separator() || self.at_trigger() {
            return Ok(false);
        }
        if COLOUR.iter().any(|c| self.at_words(c))
            || TAILS.iter().any(|c| self.at_words(c))
            || self.at_any(0, &["in", "into", "facing", "and", "then", "to"])
        {
            return Ok(false);
        }
        let save = self.pos;
        let start = self.here();
        let from = self.at;
        let Ok(p) = self.place(from, true) else {
            self.pos = save;
            return Ok(false);
        };
        self.eat_any(&["line", "position"]);
        let written = self.written(start, self.last_end());
        // "hold the edge of the north woods facing S": faced that way there.
        let facing = if self.at_word("facing") {
            self.optional_facing()?
        } else {
            None
        };
        if let Some(d) = &facing {
            self.track_facing(d);
        }
        if p.distance(self.at) > 0.5 {
            Self::push(steps, Trigger::Then, Self::move_to(p));
            if let Some(d) = facing {
                Self::push(steps, Trigger::OnArrival, Action::Face(d));
                Self::push(steps, Trigger::Then, Action::Hold);
            } else {
                Self::push(steps, Trigger::OnArrival, Action::Hold);
            }
            // The reading says "on arrival hold"; the note says only where
            // the place was read, so the hold is not said twice.
            let verb_at = self
                .toks
                .get(save.saturating_sub(1))
                .filter(|t| t.is_word("in") || t.is_word("at"))
                .and_then(|_| self.toks.get(save.saturating_sub(2)))
                .map_or(start, |t| t.start);
            let said = self.written(verb_at, self.last_end());
            if verb_at == start {
                self.note(format!(
                    "'hold {written}' read as: advance there, then hold"
                ));
            } else {
                self.note(format!("'{said}' read as: advance to {}", show_pos(p)));
            }
        } else {
            if let Some(d) = facing {
                Self::push(steps, Trigger::Then, Action::Face(d));
            }
            Self::push(steps, Trigger::Then, Action::Hold);
        }
        Ok(true)
    }

    /// "unlimber on the ridge facing east", "unlimber at the farm": the
    /// place to go to first.
    fn unlimber_place(&mut self) -> PResult<Option<Pos>> {
        let save = self.pos;
        if self.at_word("between") || self.at_relative() {
            let from = self.at;
            return self.place(from, false).map(Some);
        }
        if self.eat_any(&["on", "at", "in", "near"]).is_none() || self.at_trigger() {
            self.pos = save;
            return Ok(None);
        }
        let from = self.at;
        self.place(from, false).map(Some)
    }

    /// "advance on the yankees", "move against B", "press upon the
    /// enemy battery": toward that enemy (one the side sees), as "toward".
    fn enemy_as_destination(&mut self, m: &mut MoveBuild) -> PResult<()> {
        if !self.at_any(0, &["on", "upon", "against"]) {
            return Ok(());
        }
        let save = self.pos;
        self.pos += 1;
        let probe = self.pos;
        let enemy = self.designation_a().is_some()
            || self.designation_at(0)
            || (self.at_word("enemy") && self.designation_at(1))
            || self.enemy_description().is_some();
        self.pos = probe;
        if !enemy {
            // "advance on the 26th Georgia": a numbered name that is no
            // place, so meant as an enemy — answered as a name of nothing
            // is (never saying whether such an enemy exists).
            let numbered = self
                .toks
                .get(self.pos..(self.pos + 3).min(self.toks.len()))
                .unwrap_or_default()
                .iter()
                .any(|t| {
                    t.word()
                        .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()))
                });
            if numbered {
                let at = self.here();
                let written = self.phrase_text();
                let from = self.at;
                let is_place = self.place(from, true).is_ok();
                self.pos = probe;
                if !is_place {
                    let (e1, _) = self.ctx.example_enemies();
                    return Err(PErr {
                        at,
                        message: format!(
                            "no enemy unit in sight is called '{written}'; to advance on an enemy, name one your side sees by its letter, as in 'advance on {e1}'"
                        ),
                        suggestions: Vec::new(),
                    });
                }
            }
            self.pos = save;
            return Ok(());
        }
        let start = self.here();
        let from = self.at;
        let p = self.place(from, false)?;
        let w = self.written(start, self.last_end());
        self.note(format!(
            "'on {w}' read as: toward that enemy, where your side last saw it ({}, {})",
            (p.x * 10.0).round() / 10.0,
            (p.y * 10.0).round() / 10.0
        ));
        m.dests.push(p);
        Ok(())
    }

    /// Ammunition and volley words after "fire" ("fire canister at",
    /// "fire by volley at"): colour. Iron Brigade does not choose the
    /// round or the drill: the charts give fire by range (APSoF V, XIII).
    fn fire_colour(&mut self) {
        let words: &[&[&str]] = &[
            &["by", "volley"],
            &["by", "volleys"],
            &["in", "volleys"],
            &["by", "companies"],
            &["by", "file"],
            &["by", "rank"],
            &["a", "volley"],
            &["volleys"],
            &["canister"],
            &["double", "canister"],
            &["case", "shot"],
            &["case"],
            &["shell"],
            &["shells"],
            &["solid", "shot"],
            &["shot"],
            &["spherical", "case"],
        ];
        let start = self.here();
        if words.iter().any(|w| self.eat_words(w)) {
            let end = self.last_end();
            self.note_colour(start, end);
        }
    }

    /// "keep pace with the 7th", "keep station on the 7th", "keep abreast
    /// of the 7th", "keep in line with the 7th": conform to it.
    fn keep_pace(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        self.pos += 1;
        self.eat_any(&["pace", "station", "abreast", "up", "step", "in"]);
        self.eat_word("line");
        self.eat_any(&["with", "on", "of", "alongside"]);
        let (id, name) = self.own_unit_for("keep pace with")?;
        let Some(friend) = self.ctx.state.unit(id) else {
            return Err(self.err("that unit is no longer on the field"));
        };
        let (right, ahead) = geometry::footprint(friend).to_local(self.at);
        Self::push(
            steps,
            Trigger::Then,
            Action::Follow {
                unit: id,
                right,
                ahead,
            },
        );
        self.note(format!(
            "'keep pace with {name}' read as: follow its moves, keeping the station it has on it now; each turn it moves after {name}, toward that station where {name} then stands (its own move, APSoF IV.C.3, IV.G)"
        ));
        Ok(())
    }

    /// Whether a volley is meant: "pour fire into", "pour a volley into",
    /// "volley fire at", "give them a volley".
    fn volley_ahead(&self) -> bool {
        match self.word_at(0) {
            Some("pour") => self.at_any(1, &["fire", "a", "volleys", "it", "in", "lead"]),
            Some("volley") => true,
            // "deliver a volley into the enemy".
            Some("deliver" | "delivers") => {
                (1..=2).any(|k| self.at_any(k, &["volley", "volleys", "fire"]))
            }
            Some("give") => (1..=4).any(|k| self.at_any(k, &["volley", "volleys", "fire"])),
            _ => false,
        }
    }

    /// "pour fire into the reb line", "volley at B", "give them a volley":
    /// fire (APSoF V); "them" is fire at will.
    fn volley(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let start = self.here();
        let verb = self.word_at(0).unwrap_or_default();
        self.pos += 1;
        let mut target = None;
        if verb == "give" {
            if !self.eat_any(&["them", "it", "him"]).is_some_and(|_| true) {
                let at = self.here();
                if let Some(u) = self.designation_a() {
                    target = Some(FireTarget::Unit(u));
                } else if let Some(d) = self.enemy_description() {
                    target = Some(if d.front || d.near.is_some() || d.arm.is_none() {
                        if d.arm.is_none() && !d.front && d.near.is_none() {
                            FireTarget::AtWill
                        } else {
                            FireTarget::Unit(self.described_enemy(&d, at)?)
                        }
                    } else {
                        FireTarget::NearestOf(d.arm.unwrap_or(Arm::Infantry))
                    });
                } else {
                    let enemies = self.ctx.visible_enemy_units();
                    let hint = self.in_sight_hint();
                    let u = self.need_name(&enemies, &|s| {
                        format!("no enemy unit in sight is called {s}; {hint}: fire at one of them, or 'at will'")
                    })?;
                    target = Some(FireTarget::Unit(u));
                }
            }
            self.eat_any(&["a", "another"]);
            self.eat_any(&["volley", "volleys", "fire"]);
        } else {
            self.eat_any(&["a", "in", "it", "its"]);
            self.eat_any(&["fire", "volley", "volleys", "lead"]);
        }
        let target = match target {
            Some(t) => t,
            None if self.eat_any(&["into", "at", "on", "upon"]).is_some() => self.fire_target()?,
            None => FireTarget::AtWill,
        };
        Self::push(steps, Trigger::Then, Action::Fire(target));
        let end = self.last_end();
        let w = self.written(start, end);
        self.note(format!("'{w}' read as: fire (APSoF V)"));
        Ok(())
    }

    /// "refuse the left flank", "bend back the right", "throw back its
    /// left wing".
    fn refuse_ahead(&self) -> bool {
        (1..=4).any(|k| self.at_any(k, &["left", "right"]))
            && (self.at_word("refuse")
                || self.at_word("refuses")
                || (1..=2).any(|k| self.at_word_k(k, "back")))
    }

    /// "refuse the left flank": the flank drawn back so the line faces
    /// half toward that side. A unit turns whole (APSoF III.I: its facing
    /// changes; it does not bend), so the nearest the rules can do is to
    /// face 45° toward that flank — the angle Adjutant allows off the front
    /// (IV.C.3) — and the receipt says so. To bend the line itself, turn a
    /// second unit.
    fn refuse_flank(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let start = self.here();
        self.pos += 1;
        self.eat_word("back");
        self.eat_any(&["the", "its", "your", "our", "their", "his"]);
        let Some(side) = self.eat_any(&["left", "right"]) else {
            return Err(self.expected("'left' or 'right' after 'refuse'"));
        };
        self.eat_any(&["flank", "wing", "end"]);
        self.eat_word("back");
        let turn = if side == "left" { -45.0 } else { 45.0 };
        let deg = normalize_deg(self.facing + turn);
        self.track_facing(&Direction::Degrees(deg));
        Self::push(steps, Trigger::Then, Action::Face(Direction::Degrees(deg)));
        let written = self.written(start, self.last_end());
        self.note(format!(
            "'{written}' read as: face 45° to the {side}, to {} — a unit turns whole and does not bend (APSoF III.I); to refuse a flank of the brigade, turn the unit on that flank",
            crate::report::place::facing_point(deg)
        ));
        Ok(())
    }

    /// Whether "out skirmishers", "forward a skirmish line", "4 castings as
    /// skirmishers" follows a verb such as "throw".
    fn skirmishers_ahead(&self) -> bool {
        (1..=6).any(|k| self.at_any(k, &["skirmishers", "skirmisher", "skirmish"]))
    }

    /// "throw out skirmishers", "send forward 4 castings as skirmishers":
    /// skirmishers are split off from their parent unit (APSoF VII.E), an
    /// advanced-rules reorganisation (III.F.2) — with the scenario option
    /// `skirmishers` or `split-units`, a split of the castings named;
    /// otherwise refused with what can be written instead.
    fn throw_out_skirmishers(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let at = self.here();
        self.pos += 1;
        self.eat_any(&["out", "forward", "forwards", "ahead", "off"]);
        // "throw out its companies as skirmishers", "deploy all its
        // companies as skirmishers": the whole regiment, so skirmish order
        // (APSoF III.E), not a number split off.
        {
            let save = self.pos;
            self.eat_word("all");
            self.eat_any(&["its", "his", "the", "their", "of"]);
            self.eat_any(&["its", "the"]);
            let whole = self
                .eat_any(&["companies", "men", "regiment", "whole"])
                .is_some();
            self.eat_word("regiment");
            if whole
                && self.eat_word("as")
                && self.eat_any(&["skirmishers", "skirmisher"]).is_some()
            {
                let said = self.written(at, self.last_end());
                self.pos = save;
                // Re-read the words to leave the position after them.
                self.eat_word("all");
                self.eat_any(&["its", "his", "the", "their", "of"]);
                self.eat_any(&["its", "the"]);
                self.eat_any(&["companies", "men", "regiment", "whole"]);
                self.eat_word("regiment");
                self.eat_word("as");
                self.eat_any(&["skirmishers", "skirmisher"]);
                if self.unit.is_some_and(|u| u.arm.is_artillery()) {
                    return Err(self.err("a battery cannot go into skirmish order (APSoF III.D: limbered or unlimbered)"));
                }
                Self::push(
                    steps,
                    Trigger::Then,
                    Action::Form {
                        formation: Formation::Skirmish,
                        facing: None,
                    },
                );
                self.note(format!(
                    "'{said}' read as: form skirmish order, the whole regiment (APSoF III.E)"
                ));
                return Ok(());
            }
            self.pos = save;
        }
        let n = self.number();
        if n.is_some() {
            self.castings_word()?;
            self.eat_any(&["as", "of"]);
        }
        self.eat_any(&["a", "the", "some", "our", "its"]);
        self.eat_any(&["company", "screen", "line"]);
        self.eat_word("of");
        if self.eat_word("skirmish") {
            self.eat_any(&["line", "screen", "order"]);
        } else {
            self.eat_any(&["skirmishers", "skirmisher"]);
        }
        self.eat_any(&["out", "forward", "ahead", "to", "the", "front"]);
        self.eat_words(&["to", "the", "front"]);
        let refuse = |message: String| PErr {
            at,
            message,
            suggestions: Vec::new(),
        };
        let Some(u) = self.unit else {
            return Err(refuse("only units throw out skirmishers".to_string()));
        };
        if !matches!(u.arm, Arm::Infantry | Arm::Cavalry) {
            return Err(refuse(format!(
                "{} cannot throw out skirmishers: skirmishers are split off infantry and cavalry (APSoF VII.E, III.E)",
                self.unit_called(u.id)
            )));
        }
        let o = &self.ctx.state.options;
        if !(o.skirmishers || o.advanced_organization) {
            return Err(refuse(
                "skirmishers split off their regiment only under the advanced rules (APSoF III.F.2, VII.E), not in use in this game; to put the whole regiment in skirmish order write 'form skirmish order'"
                    .to_string(),
            ));
        }
        let Some(n) = n else {
            return Err(refuse(format!(
                "say how many castings go out, as in 'throw out 4 castings as skirmishers' ({} has {}): the rules give no number (APSoF VII.E)",
                self.unit_called(u.id),
                u.castings
            )));
        };
        if n.fract() != 0.0 || n < 1.0 || n >= f64::from(u.castings) {
            return Err(refuse(format!(
                "a unit of {} castings can send out 1 to {} castings, not {n}",
                u.castings,
                u.castings.saturating_sub(1)
            )));
        }
        let new_name = format!("{} skirmishers", u.name);
        Self::push(
            steps,
            Trigger::Then,
            Action::Split {
                castings: n as u32,
                new_name: new_name.clone(),
            },
        );
        self.note(format!(
            "'throw out skirmishers' read as: split off {n} castings as {new_name}, a skirmish line ahead of it (APSoF VII.E)"
        ));
        Ok(())
    }

    /// "shell B", "bombard the battery in front of Stony Ridge",
    /// "counter-battery", "counter-battery fire at C": artillery fire
    /// (APSoF V); counter-battery with no target is at the nearest enemy
    /// battery in sight when the fire is made.
    fn shell(&mut self, steps: &mut Vec<Step>) -> PResult<()> {
        let at = self.here();
        let counter = self.at_word("counter") || self.at_word("counterbattery");
        let verb = if counter {
            "counter-battery".to_string()
        } else {
            self.word_at(0).unwrap_or_default().to_string()
        };
        self.pos += if self.at_word("counter") { 2 } else { 1 };
        self.eat_any(&["fire", "firing"]);
        if let Some(u) = self.unit
            && !u.arm.is_artillery()
        {
            return Err(PErr {
                at,
                message: format!(
                    "{} has no guns: '{verb}' is artillery fire; write 'fire at ...'",
                    self.unit_called(u.id)
                ),
                suggestions: Vec::new(),
            });
        }
        self.eat_any(&["at", "on", "upon", "against"]);
        let target = if self.at_end() || self.at_separator() || self.at_trigger() {
            if counter {
                FireTarget::NearestOf(Arm::Artillery)
            } else {
                FireTarget::AtWill
            }
        } else {
            self.fire_target().map_err(|mut e| {
                e.message = format!(
                    "{}; guns fire only at enemy units they can see (APSoF V.C.3), not at ground",
                    e.message
                );
                e
            })?
        };
        Self::push(steps, Trigger::Then, Action::Fire(target));
        self.note(format!(
            "'{verb}' read as: artillery fire (APSoF V){}",
            if counter && target == FireTarget::NearestOf(Arm::Artillery) {
                ", at the nearest enemy battery in sight when the fire is made"
            } else {
                ""
            }
        ));
        Ok(())
    }

    // ------------------------------------------------------------ places

    /// A place, resolved to a table position as seen from `from`.
    /// `quiet` is for look-ahead: the caller discards the error.
    pub fn place(&mut self, from: Pos, quiet: bool) -> PResult<Pos> {
        let _ = quiet;
        // "advance to the Douglass house and occupy it": the place just
        // named.
        if self.at_any(0, &["it", "them"])
            && self.toks.get(self.pos + 1).is_none_or(|t| {
                !matches!(t.tok, Tok::Word(_)) || t.is_word("and") || t.is_word("then")
            })
            && let Some(last) = self.last_place
        {
            self.pos += 1;
            return Ok(self.ctx.locate(last, from, false));
        }
        if self.at_punct('(') {
            return self.coordinates();
        }
        // "1 o'clock, 200 yds": a clock hour, not a distance.
        if self.bearing_at(0).is_some()
            && let Some(p) = self.compass_first_offset(from)?
        {
            return Ok(p);
        }
        if self.at_number() {
            if self.toks.get(self.pos + 1).is_some_and(|t| t.is_punct(','))
                && matches!(
                    self.toks.get(self.pos + 2).map(|t| &t.tok),
                    Some(Tok::Number(_))
                )
            {
                return self.coordinates();
            }
            return self.offset_place(from, self.facing);
        }
        if let Some(p) = self.compass_first_offset(from)? {
            return Ok(p);
        }
        // "a position on the left of ...", "position behind ...".
        let save = self.pos;
        if (self.eat_words(&["a", "position"]) || self.eat_word("position")) && !self.at_relative()
        {
            self.pos = save;
        }
        if let Some(p) = self.relative_place()? {
            return Ok(p);
        }
        self.skip_to_marked_designation();
        if let Some(u) = self.designation_a() {
            return Ok(self.ctx.locate(PlaceRef::Unit(u), from, false));
        }
        let at = self.here();
        if let Some(d) = self.enemy_description() {
            let u = self.described_enemy(&d, at)?;
            return Ok(self.ctx.locate(PlaceRef::Unit(u), from, false));
        }
        // "between the 2nd and 5th Virginia": midway.
        if self.eat_word("between") {
            let a = self.point_of(from)?;
            if !self.eat_word("and") && !self.eat_punct('&') {
                return Err(self.expected("'and' and a second unit or place after 'between ...'"));
            }
            let b = self.point_of(from)?;
            return Ok(Pos::new((a.x + b.x) / 2.0, (a.y + b.y) / 2.0));
        }
        // "within 100 yards of the Douglass house": that far short of it.
        if self.at_word("within")
            && self
                .toks
                .get(self.pos + 1)
                .is_some_and(|t| matches!(t.tok, Tok::Number(_)))
        {
            self.pos += 1;
            let d = self.distance()?;
            self.eat_any(&["of", "from"]);
            let x = self.point_of(from)?;
            let len = x.distance(from);
            if len <= d || len < 1e-9 {
                return Ok(from);
            }
            let t = (len - d) / len;
            return Ok(Pos::new(
                from.x + (x.x - from.x) * t,
                from.y + (x.y - from.y) * t,
            ));
        }
        // "ride to Gibbon", "to the support of General Gibbon": where an
        // officer of his own side stands (never an enemy's).
        if let Some(p) = self.side_officer_place() {
            return Ok(p);
        }
        // "the south edge of the west woods", "the north side of the
        // Douglass house": where a line from the place's middle that way
        // leaves its outline (a place with none: an inch that way).
        if let Some(p) = self.compass_side_of(from)? {
            return Ok(p);
        }
        let far = self.eat_words(&["the", "far", "edge", "of"])
            || self.eat_words(&["far", "edge", "of"])
            || self.eat_words(&["the", "far", "side", "of"])
            || self.eat_words(&["the", "other", "side", "of"]);
        let mut edge = far
            || self.eat_words(&["the", "edge", "of"])
            || self.eat_words(&["edge", "of"])
            || self.eat_words(&["the", "near", "edge", "of"])
            || self.eat_words(&["near", "edge", "of"]);
        let at = self.here();
        let first = self.pos;
        let places = self.ctx.places();
        // An officer going "to the battery" where that could be his own
        // or an enemy's: his own (an officer rides to his own units).
        let own_pick = if self.unit.is_none() {
            self.prefer_own(places).map(PlaceRef::Unit)
        } else {
            None
        };
        let own_pick = match own_pick {
            Some(r) => Some(r),
            None => self.nearest_of_like(from, at),
        };
        // "ride to the 26th": the one unit of his side with that number.
        let own_pick = match own_pick {
            Some(r) => Some(r),
            None if matches!(self.name(places), Lookup::NotFound) => {
                self.pos = first;
                self.bare_ordinal()?.map(PlaceRef::Unit)
            }
            None => {
                self.pos = first;
                None
            }
        };
        let place = match own_pick {
            Some(r) => r,
            None => self.need_name(places, &|s| {
                format!("expected a place: {s} is not a landmark, feature or unit you know of")
            })?,
        };
        if let PlaceRef::Unit(id) = place {
            self.in_battle(id, at)?;
        }
        let words = token_words(self.toks.get(first..self.pos).unwrap_or_default());
        // "the woods edge", "the woods' edge": the edge of the woods.
        let apostrophe = usize::from(
            (self.at_punct('\'') || self.at_punct('\u{2019}')) && self.at_word_k(1, "edge"),
        );
        if !edge && self.at_word_k(apostrophe, "edge") && !self.at_word_k(apostrophe + 1, "of") {
            self.pos += apostrophe + 1;
            edge = true;
        }
        let place = match place {
            PlaceRef::Point(p) if edge => self.ctx.area_at(p).map(PlaceRef::Area).unwrap_or(place),
            other => other,
        };
        // "the fence in front of the farm", "the woods near the railroad":
        // of the places so called, the part nearest the second place.
        let first_at = self.ctx.locate(place, from, false);
        let by = self.place_beside_place(first_at);
        let place = self.choose_among_like(place, &words, by.unwrap_or(from), at);
        let place = self.landmark_on_line(place, &words, by.unwrap_or(from), at);
        self.last_place = Some(place);
        // Falling back in the woods it stands in: straight back to just
        // inside their rear edge, not across them to their middle.
        if self.retreating
            && self.is_woods(place, &words)
            && !far
            && !edge
            && by.is_none()
            && let Some(ring) = self.ctx.outline(place)
            && super::context::inside(ring, from)
            && let Some(exit) =
                super::context::ray_exit(ring, from, normalize_deg(self.ctx.side_front() + 180.0))
        {
            let d = self
                .unit
                .map(|u| geometry::formation_size(u, u.formation).1)
                .unwrap_or(0.0);
            let len = exit.distance(from);
            let p = if len > d / 2.0 {
                Pos::new(
                    exit.x - (exit.x - from.x) / len * d / 2.0,
                    exit.y - (exit.y - from.y) / len * d / 2.0,
                )
            } else {
                from
            };
            let name = self.place_name(match place {
                PlaceRef::Point(q) => self.ctx.area_at(q).map_or(place, PlaceRef::Area),
                other => other,
            });
            self.place_note(
                at,
                format!(
                    "the unit is in {name}: falling back, it goes straight back to just inside its rear edge, {}",
                    show_pos(p)
                ),
            );
            self.skip_place_qualifiers();
            return Ok(p);
        }
        // Falling back into woods: to the near side of them, not through
        // them to their middle. So too "halt in the woods", "halt in the
        // edge of the woods": just inside the nearer edge.
        if (self.retreating && !edge || self.halting_in)
            && self.is_woods(place, &words)
            && !far
            && by.is_none()
            && let Some(ring) = self.ctx.outline(place)
            && !super::context::inside(ring, from)
        {
            let area = match place {
                PlaceRef::Point(q) => self.ctx.area_at(q).map_or(place, PlaceRef::Area),
                other => other,
            };
            let edge_at = self.ctx.locate(area, from, true);
            // Half the unit's depth on, so the whole unit is inside.
            let d = self
                .unit
                .map(|u| geometry::formation_size(u, u.formation).1)
                .unwrap_or(0.0);
            let len = edge_at.distance(from);
            let p = if len > 1e-9 {
                Pos::new(
                    edge_at.x + (edge_at.x - from.x) / len * d / 2.0,
                    edge_at.y + (edge_at.y - from.y) / len * d / 2.0,
                )
            } else {
                edge_at
            };
            let name = self.place_name(area);
            self.place_note(
                at,
                format!(
                    "{} {name}: to just inside its nearer edge, {}",
                    if self.halting_in {
                        "halting in"
                    } else {
                        "falling back into"
                    },
                    show_pos(p)
                ),
            );
            self.skip_place_qualifiers();
            return Ok(p);
        }
        if let Some(q) = by
            && !far
            && !edge
        {
            let p = self.ctx.locate(place, q, false);
            self.skip_place_qualifiers();
            return Ok(p);
        }
        let p = if far && let Some(ring) = self.ctx.outline(place) {
            // The far edge: where the line from the unit through the
            // middle of the area leaves it.
            let c = self.ctx.locate(place, from, false);
            super::context::ray_exit(ring, from, geometry::bearing(from, c)).unwrap_or(c)
        } else if edge && self.ctx.has_edge(place) {
            self.edge_point(place, from, at)
        } else {
            self.ctx.locate(place, from, false)
        };
        self.skip_place_qualifiers();
        Ok(p)
    }

    /// "the south edge of X", "north side of X", "the south-west end of
    /// X": the side of a place that way, or `None` (nothing eaten).
    fn compass_side_of(&mut self, from: Pos) -> PResult<Option<Pos>> {
        let save = self.pos;
        self.eat_word("the");
        let mut letters = String::new();
        while let Some(l) = self
            .word_at(0)
            .and_then(compass_letters)
            .filter(|l| letters.len() + l.len() <= 3)
        {
            letters.push_str(&l);
            self.pos += 1;
        }
        let dir = COMPASS.iter().find(|(l, _)| *l == letters).map(|(_, d)| *d);
        let Some(dir) = dir else {
            self.pos = save;
            return Ok(None);
        };
        if self
            .eat_any(&["edge", "side", "end", "face", "border"])
            .is_none()
            || !self.eat_word("of")
        {
            self.pos = save;
            return Ok(None);
        }
        let c = self.point_of(from)?;
        let ring = self.last_place.and_then(|pl| {
            let area = match pl {
                PlaceRef::Point(q) => self.ctx.area_at(q).map_or(pl, PlaceRef::Area),
                other => other,
            };
            self.ctx.outline(area)
        });
        let centre = ring.map_or(c, super::context::centre);
        let p = match ring.and_then(|r| super::context::ray_exit(r, centre, dir)) {
            Some(p) => p,
            None => {
                let (vx, vy) = geometry::facing_vector(dir);
                Pos::new(c.x + vx, c.y + vy)
            }
        };
        Ok(Some(p))
    }

    /// Whether a place is (or a landmark named as woods stands in) woods.
    /// A landmark that only stands in a wood ("the railroad cut" in the
    /// north woods) is that landmark, not the wood: `words` is the name as
    /// written.
    fn is_woods(&self, place: PlaceRef, words: &[String]) -> bool {
        let woods_word = words.iter().any(|w| {
            matches!(
                w.as_str(),
                "woods" | "wood" | "wds" | "timber" | "forest" | "trees" | "woodlot" | "copse"
            )
        });
        let i = match place {
            PlaceRef::Area(i) => Some(i),
            PlaceRef::Point(p) if woods_word => self.ctx.area_at(p),
            _ => None,
        };
        i.and_then(|i| self.ctx.state.terrain.areas.get(i))
            .is_some_and(|a| {
                matches!(
                    a.kind,
                    crate::rules::iron_brigade::kinds::AreaKind::Woods
                        | crate::rules::iron_brigade::kinds::AreaKind::DenseWoods
                )
            })
    }

    /// A landmark that stands on a road, railroad or fence of the same name
    /// ("the turnpike" on the Warrenton Turnpike): that line, so a unit
    /// goes to the nearest point of it, not to the landmark's spot.
    fn landmark_on_line(
        &mut self,
        place: PlaceRef,
        words: &[String],
        from: Pos,
        at: usize,
    ) -> PlaceRef {
        let PlaceRef::Point(p) = place else {
            return place;
        };
        let lines = &self.ctx.state.terrain.lines;
        // "double quick forward to the fence": a unit advancing on a fence
        // its own line of advance meets goes to where it meets it, not
        // sideways to the landmark's spot (b11-67). Elsewhere the spot.
        if self.unit.is_some() && !self.retreating {
            for l in lines {
                if !matches!(l.kind, crate::rules::iron_brigade::kinds::LineKind::Fence)
                    || super::context::nearest_on_path(&l.path, false, p).distance(p) > 0.5
                {
                    continue;
                }
                let Some(q) = ray_meets_path(from, self.facing, &l.path) else {
                    continue;
                };
                if q.distance(p) < 0.05 {
                    break;
                }
                let name = l.name.clone();
                let written = words
                    .iter()
                    .filter(|w| w.as_str() != "the")
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                self.place_note(
                    at,
                    format!(
                        "'{written}' read as where the unit's line of advance meets {name}, {}",
                        show_pos(q)
                    ),
                );
                return PlaceRef::Point(q);
            }
        }
        for (i, l) in lines.iter().enumerate() {
            // Fences keep their landmark's spot; roads and railroads are
            // reached at their nearest point.
            let near = !matches!(l.kind, crate::rules::iron_brigade::kinds::LineKind::Fence)
                && super::context::nearest_on_path(&l.path, false, p).distance(p) <= 0.5;
            // Falling back to it by an alias of the landmark ("ret. to the
            // railroad cut in yr rear" for the unfinished railroad's
            // landmark): straight back to the line, not sideways to the
            // landmark's spot (APSoF VI.C.1 sends units away from the
            // enemy). Advancing, the landmark's spot is kept.
            let landmark_named = self.retreating
                && self.ctx.landmark_at(p).is_some_and(|n| {
                    super::names::norm_words(n) == super::names::norm_words(&l.name)
                });
            if near
                && (landmark_named
                    || super::names::match_quality(words, &super::names::norm_words(&l.name))
                        .is_some())
            {
                let q = self.ctx.locate(PlaceRef::Line(i), from, false);
                let written = words
                    .iter()
                    .filter(|w| w.as_str() != "the")
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                let name = l.name.clone();
                self.place_note(
                    at,
                    format!(
                        "'{written}' read as the nearest point of {name}, {}",
                        show_pos(q)
                    ),
                );
                return PlaceRef::Line(i);
            }
        }
        place
    }

    /// A name here that could be one of the writer's own units or an
    /// enemy ("the battery"): his own, said in the receipt. `None` (and
    /// nothing read) unless the name is ambiguous that way.
    fn prefer_own<T: Clone + PartialEq>(&mut self, cands: &[Candidate<T>]) -> Option<UnitId> {
        let save = self.pos;
        let written = self.phrase_text();
        if !matches!(self.name(cands), Lookup::Ambiguous(_)) {
            self.pos = save;
            return None;
        }
        let own = self.ctx.own_units();
        match self.name(&own) {
            Lookup::Found(id) => {
                let note = format!(
                    "'{written}' read as your {} (for an enemy, write 'enemy' and its letter from your report)",
                    self.unit_called(id),
                );
                self.note(note);
                Some(id)
            }
            _ => {
                self.pos = save;
                None
            }
        }
    }

    /// A unit or a place here, where it is: "the 2nd" (a bare ordinal of
    /// his own side), else any place [`Self::place`] reads.
    fn point_of(&mut self, from: Pos) -> PResult<Pos> {
        if let Some(id) = self.bare_ordinal()? {
            return Ok(self.ctx.locate(PlaceRef::Unit(id), from, false));
        }
        if self.depth >= 4 {
            return Err(self.err("too many places within places; give the place directly"));
        }
        self.depth += 1;
        let p = self.place(from, false);
        self.depth -= 1;
        p
    }

    /// A name several places share ("the farm": the Brawner farm or the
    /// Douglass farm): the one nearest the unit, said in the receipt.
    /// `None` (nothing read) unless the name is ambiguous among places
    /// only.
    fn nearest_of_like(&mut self, from: Pos, at: usize) -> Option<PlaceRef> {
        let places = self.ctx.places();
        let start = self.pos;
        let Lookup::Ambiguous(_) = self.name(places) else {
            self.pos = start;
            return None;
        };
        let written = self.phrase_text();
        let end_max = (start + 6).min(self.toks.len());
        for end in (start + 1..=end_max).rev() {
            // Never end on "the" or on a mark: "the ridge, lie down" leaves
            // the comma to separate the next step.
            if self
                .toks
                .get(end - 1)
                .is_some_and(|t| t.is_word("the") || matches!(t.tok, Tok::Punct(_)))
            {
                continue;
            }
            let words = token_words(self.toks.get(start..end).unwrap_or_default());
            let mut hits: Vec<&Candidate<PlaceRef>> = places
                .iter()
                .filter(|c| super::names::match_quality(&words, &c.words).is_some())
                .collect();
            // "the wood": the woods, not a unit whose name only starts so
            // (Wooding's Battery) when places fit too.
            if hits.iter().any(|c| !matches!(c.target, PlaceRef::Unit(_))) {
                hits.retain(|c| {
                    !matches!(c.target, PlaceRef::Unit(_))
                        || super::names::match_quality(&words, &c.words) == Some(true)
                });
            }
            if hits.is_empty() {
                continue;
            }
            if hits.iter().any(|c| matches!(c.target, PlaceRef::Unit(_))) {
                return None;
            }
            // "the farm": the places whose name ends in a farm (the Brawner
            // farm, the Douglass farm), not the Brawner farm lane the unit
            // stands on nor its buildings, when there are such.
            let head = words.last().map(|w| w.trim_end_matches('s').to_string());
            let headed: Vec<&Candidate<PlaceRef>> = hits
                .iter()
                .copied()
                .filter(|c| c.words.last().map(|w| w.trim_end_matches('s')) == head.as_deref())
                .collect();
            let hits = if headed.is_empty() { hits } else { headed };
            let mut seen: Vec<(PlaceRef, String, Pos)> = Vec::new();
            for c in &hits {
                let key = self.place_key(c.target);
                if !seen.iter().any(|(k, _, _)| self.place_key(*k) == key) {
                    seen.push((
                        c.target,
                        c.display.clone(),
                        self.ctx.locate(c.target, from, false),
                    ));
                }
            }
            let (best, name, p) = seen
                .iter()
                .min_by(|a, b| a.2.distance(from).total_cmp(&b.2.distance(from)))
                .cloned()?;
            let list: Vec<String> = seen
                .iter()
                .map(|(_, n, q)| format!("{n} {}", show_pos(*q)))
                .collect();
            self.pos = end;
            self.place_note(
                at,
                format!(
                    "'{written}' could be {}; took the nearer, {name} {} (write its full name for another)",
                    or_list(&list),
                    show_pos(p)
                ),
            );
            return Some(best);
        }
        None
    }

    /// "in front of the farm", "near the railroad", "next to the orchard",
    /// "by the Douglass house" after a place's name: where the second
    /// place is, to choose the part (or the one) of the first nearest it.
    fn place_beside_place(&mut self, first_at: Pos) -> Option<Pos> {
        if self.depth >= 4 {
            return None;
        }
        let save = self.pos;
        let ok = (self.eat_words(&["in", "front", "of"]) && !self.at_any(0, &["us", "you", "it"]))
            || self.eat_words(&["next", "to"])
            || self.eat_words(&["close", "to"])
            || self.eat_words(&["in", "rear", "of"])
            || self
                .eat_any(&[
                    "near",
                    "nearest",
                    "beside",
                    "behind",
                    "beyond",
                    "overlooking",
                ])
                .is_some();
        if !ok {
            self.pos = save;
            return None;
        }
        self.depth += 1;
        let from = self.at;
        let before = self.last_place;
        let name_at = self.pos;
        let p = self.place(from, true);
        self.last_place = before;
        self.depth -= 1;
        match p {
            Ok(p) => Some(p),
            Err(_) => {
                // A name several places share ("the farm"): the one
                // nearest the first place.
                self.pos = name_at;
                let end_max = (name_at + 6).min(self.toks.len());
                for end in (name_at + 1..=end_max).rev() {
                    let words = token_words(self.toks.get(name_at..end).unwrap_or_default());
                    let best = self
                        .ctx
                        .places()
                        .iter()
                        .filter(|c| !matches!(c.target, PlaceRef::Unit(_)))
                        .filter(|c| super::names::match_quality(&words, &c.words).is_some())
                        .map(|c| self.ctx.locate(c.target, first_at, false))
                        .min_by(|a, b| a.distance(first_at).total_cmp(&b.distance(first_at)));
                    if let Some(q) = best {
                        self.pos = end;
                        return Some(q);
                    }
                }
                self.pos = save;
                None
            }
        }
    }

    /// Qualifiers that say where a named place is without changing it
    /// ("the woods to the east", "the fence on the far side", and a
    /// receipt's "(41, 30)" after a name).
    fn skip_place_qualifiers(&mut self) {
        let save = self.pos;
        if self.eat_punct('(') {
            let mut ok = false;
            while let Some(t) = self.peek() {
                self.pos += 1;
                if t.is_punct(')') {
                    ok = true;
                    break;
                }
                if !matches!(t.tok, Tok::Number(_) | Tok::Punct(',')) {
                    break;
                }
            }
            if !ok {
                self.pos = save;
            }
        }
        let quals: &[&[&str]] = &[
            &["to", "your", "front"],
            &["to", "the", "front"],
            &["on", "the", "far", "side"],
            &["on", "the", "other", "side"],
            &["ahead"],
        ];
        for q in quals {
            if self.eat_words(q) {
                return;
            }
        }
        let save = self.pos;
        if self.eat_words(&["to", "the"]) || self.eat_words(&["to", "your"]) {
            if self.compass().is_some() {
                return;
            }
            self.pos = save;
        }
    }

    fn coordinates(&mut self) -> PResult<Pos> {
        let paren = self.eat_punct('(');
        let minus_x = self.minus_before();
        let Some(x) = self.number() else {
            return Err(self.expected("a coordinate such as (34, 12)"));
        };
        self.eat_punct(',');
        let minus_y = self.minus_before();
        let Some(y) = self.number() else {
            return Err(self.expected("the second coordinate, as in (34, 12)"));
        };
        let x = if minus_x { -x } else { x };
        let y = if minus_y { -y } else { y };
        if paren && !self.eat_punct(')') {
            return Err(self.expected("')' to close the coordinates"));
        }
        if x.abs() > 10_000.0 || y.abs() > 10_000.0 {
            return Err(self.err(format!("({x}, {y}) is off any table; give table inches")));
        }
        Ok(Pos::new(x, y))
    }

    /// "300 yards north of the church", "5 inches east of X", "6 inches
    /// south" (of the unit itself), "4 inches" (straight on along
    /// `default_bearing`), "100 yards in rear of the battery".
    fn offset_place(&mut self, from: Pos, default_bearing: f64) -> PResult<Pos> {
        let n_at = self.here();
        let inches = self.distance()?;
        let rel_at = self.here();
        if let Some(rel) = self.relative_words() {
            return Ok(self.relative_to(rel, Some(inches), rel_at)?.0);
        }
        let _ = n_at;
        // "advance 100 yds to the front", "4 inches forward": straight ahead.
        if self.eat_words(&["to", "the", "front"])
            || self.eat_words(&["to", "your", "front"])
            || self.eat_words(&["to", "its", "front"])
            || self.eat_words(&["to", "our", "front"])
            || self
                .eat_any(&["forward", "forwards", "fwd", "ahead"])
                .is_some()
        {
            let (dx, dy) = geometry::facing_vector(default_bearing);
            return Ok(Pos::new(from.x + dx * inches, from.y + dy * inches));
        }
        // "march 3 in. to the rear": toward your side's rear (its front is
        // toward the enemy it has seen; see the rulings), not the unit's
        // own, which a unit that has faced about has turned.
        if self.eat_words(&["to", "the", "rear"])
            || self.eat_words(&["to", "your", "rear"])
            || self.eat_words(&["to", "our", "rear"])
            || self.eat_any(&["rearward", "rearwards"]).is_some()
        {
            let (dx, dy) = geometry::facing_vector(normalize_deg(self.ctx.side_front() + 180.0));
            return Ok(Pos::new(from.x + dx * inches, from.y + dy * inches));
        }
        let before_to = self.pos;
        self.eat_words(&["to", "the"]);
        let bearing = self.compass();
        if bearing.is_none() {
            self.pos = before_to;
        }
        let base = if self.eat_any(&["of", "from"]).is_some() {
            if self.depth >= 4 {
                return Err(self.err("too many places within places; give the place directly"));
            }
            self.depth += 1;
            let p = self.place(from, false);
            self.depth -= 1;
            p?
        } else {
            from
        };
        let b = bearing.unwrap_or(default_bearing);
        let (dx, dy) = geometry::facing_vector(b);
        Ok(Pos::new(base.x + dx * inches, base.y + dy * inches))
    }

    /// "on the left of the 6th Wisconsin", "behind the field fence", "in
    /// front of ...": a position relative to a unit or a place (see
    /// [`Self::relative_to`]).
    fn relative_place(&mut self) -> PResult<Option<Pos>> {
        let at = self.here();
        let Some(rel) = self.relative_words() else {
            return Ok(None);
        };
        Ok(Some(self.relative_to(rel, None, at)?.0))
    }

    // ------------------------------------------------ places (issue #15)
    //
    // Relative positions to units and places, direction before distance,
    // paces and rods, and places chosen by the order's sense. Rulings in
    // docs/orders.md ("Places", "Rulings").

    /// A distance: a number and its unit, in table inches. Yards, paces
    /// and rods are turned into inches by the scenario's ground scale
    /// (APSoF IV.A: "each inch on the wargame table represents 25 yards");
    /// a pace is 30 inches (the common-time step of Hardee's and Casey's
    /// infantry tactics), a rod 16.5 feet.
    fn distance(&mut self) -> PResult<f64> {
        let Some(n) = self.number() else {
            return Err(self.expected("a distance"));
        };
        let yards = |p: &Self, y: f64| -> PResult<f64> {
            if !(p.ctx.yards_per_inch.is_finite() && p.ctx.yards_per_inch > 0.0) {
                return Err(
                    p.err("this game has no yards-per-inch scale; give the distance in inches")
                );
            }
            Ok(y / p.ctx.yards_per_inch)
        };
        let inches = if self
            .eat_any(&["yards", "yard", "yds", "yd", "y", "yrds", "yads", "yardss"])
            .is_some()
        {
            yards(self, n)?
        } else if self.eat_any(&["paces", "pace", "steps", "step"]).is_some() {
            yards(self, n * PACE_YARDS)?
        } else if self.eat_any(&["rods", "rod"]).is_some() {
            yards(self, n * ROD_YARDS)?
        } else if self.eat_any(&["feet", "foot", "ft"]).is_some() {
            yards(self, n / 3.0)?
        } else if self
            // "inchs", "inchés": a slip in the unit word is still inches.
            .eat_any(&[
                "inches", "inch", "in", "ins", "inchs", "inchess", "inche", "inchse",
            ])
            .is_some()
            || self.eat_punct('"')
        {
            n
        } else {
            return Err(self.expected(&format!("'yards', 'paces', 'rods' or 'inches' after {n}")));
        };
        // "4 in. north", "200 yds. NE": the dot of the abbreviation, not a
        // full stop, when the order goes on in lower case.
        if self.at_punct('.')
            && self
                .pos
                .checked_sub(1)
                .and_then(|k| self.toks.get(k))
                .zip(self.peek())
                .is_some_and(|(a, b)| {
                    a.end == b.start && matches!(a.word(), Some("in" | "ins" | "yds" | "yd" | "ft"))
                })
            && self.toks.get(self.pos + 1).is_some_and(|t| {
                self.text.get(t.start..t.end).is_some_and(|w| {
                    w.chars().next().is_some_and(char::is_lowercase)
                        // "6 in. NE", "10 in. East": a direction goes on.
                        || compass_letters(&w.to_ascii_lowercase()).is_some()
                })
            })
        {
            self.pos += 1;
        }
        if !(0.0..=1000.0).contains(&inches) {
            return Err(self.err(format!("{n} is too far to be a place on the table")));
        }
        Ok(inches)
    }

    /// Whether the number here is written with a minus sign ("(-2, 2.9)"):
    /// the lexer reads a hyphen as a space, so look at the text itself.
    fn minus_before(&self) -> bool {
        let Some(t) = self.peek() else {
            return false;
        };
        if !matches!(t.tok, Tok::Number(_)) {
            return false;
        }
        let before = self.text.get(..t.start).unwrap_or("");
        let mut back = before.chars().rev();
        matches!(back.next(), Some('-' | '\u{2212}' | '\u{2013}'))
            && back
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '(' || c == ',')
    }

    /// A bearing or a clock hour `k` tokens ahead, as umpires write them:
    /// "brg 200" (also "bearing", "bg"; degrees clockwise from north) or
    /// "1 o'clock" (hours clockwise from the unit's own front, 12 straight
    /// ahead, as a soldier uses them). The tokens it takes and its
    /// direction in degrees. The receipt gives the place it leads to.
    fn bearing_at(&self, k: usize) -> Option<(usize, f64)> {
        let num = |i: usize| match self.toks.get(self.pos + i).map(|t| &t.tok) {
            Some(Tok::Number(n)) => Some(*n),
            _ => None,
        };
        if self.at_any(k, &["brg", "bearing", "bg", "brng", "bearings"]) {
            let n = num(k + 1)?;
            if !(0.0..=360.0).contains(&n) {
                return None;
            }
            let mut used = 2;
            if self.at_any(k + 2, &["degrees", "degree", "deg", "degs"])
                || self
                    .toks
                    .get(self.pos + k + 2)
                    .is_some_and(|t| t.is_punct('\u{b0}'))
            {
                used += 1;
            }
            return Some((used, normalize_deg(n)));
        }
        let h = num(k)?;
        if h.fract() != 0.0 || !(1.0..=12.0).contains(&h) {
            return None;
        }
        let used = if self.at_any(k + 1, &["o'clock", "oclock"]) {
            2
        } else if self.at_word_k(k + 1, "o") && self.at_word_k(k + 2, "clock") {
            3
        } else {
            return None;
        };
        Some((used, normalize_deg(self.facing + 30.0 * h)))
    }

    /// Whether a compass point and a distance start here ("NE 200 yds"),
    /// or a bearing or clock hour and a distance ("brg 190, 6 in",
    /// "towards 1 o'clock, 200 yds").
    fn at_compass_distance(&self) -> bool {
        let lead = usize::from(self.at_any(0, &["the", "towards", "toward"]));
        if let Some((n, _)) = self.bearing_at(lead) {
            let mut k = lead + n;
            if self.toks.get(self.pos + k).is_some_and(|t| t.is_punct(',')) {
                k += 1;
            }
            return matches!(
                self.toks.get(self.pos + k).map(|t| &t.tok),
                Some(Tok::Number(_))
            );
        }
        // "to the north-east some four hundred paces".
        let mut k = usize::from(self.at_word("the"));
        while k < 3 && self.word_at(k).and_then(compass_letters).is_some() {
            k += 1;
        }
        k > 0
            && matches!(
                self.toks.get(self.pos + k).map(|t| &t.tok),
                Some(Tok::Number(_))
            )
    }

    /// Direction before distance: "NE 200 yds", "north 8 inches" (of the
    /// unit), "north 300 yards of the farm".
    fn compass_first_offset(&mut self, from: Pos) -> PResult<Option<Pos>> {
        if !self.at_compass_distance() {
            return Ok(None);
        }
        let save = self.pos;
        self.eat_any(&["the", "towards", "toward"]);
        let Some(bearing) = self.compass() else {
            self.pos = save;
            return Ok(None);
        };
        // "brg 190, 6 in": the umpire's comma between way and distance.
        if self.at_punct(',')
            && matches!(
                self.toks.get(self.pos + 1).map(|t| &t.tok),
                Some(Tok::Number(_))
            )
        {
            self.pos += 1;
        }
        if !self.at_number() {
            self.pos = save;
            return Ok(None);
        }
        let inches = self.distance()?;
        let base = if self.eat_any(&["of", "from"]).is_some() {
            if self.depth >= 4 {
                return Err(self.err("too many places within places; give the place directly"));
            }
            self.depth += 1;
            let p = self.place(from, false);
            self.depth -= 1;
            p?
        } else {
            from
        };
        let (dx, dy) = geometry::facing_vector(bearing);
        Ok(Some(Pos::new(base.x + dx * inches, base.y + dy * inches)))
    }

    /// The words of a relative position, without eating them.
    fn at_relative(&self) -> bool {
        !self.support_of_officer() && REL_WORDS.iter().any(|(ws, _)| self.at_words(ws))
    }

    /// "the support of General Gibbon": an officer's place (see
    /// `side_officer_place`), not a place behind a unit.
    fn support_of_officer(&self) -> bool {
        self.at_words(&["the", "support", "of"])
            && self.word_at(3).is_some_and(|w| {
                matches!(
                    w,
                    "general" | "gen" | "genl" | "colonel" | "col" | "brig" | "major" | "maj"
                ) || self
                    .ctx
                    .side_officers()
                    .iter()
                    .any(|o| o.words.iter().any(|x| *x == norm_word(w)))
            })
    }

    /// The words of a relative position ("on the left of", "behind", "in
    /// rear of", "beside", ...), eaten.
    fn relative_words(&mut self) -> Option<Rel> {
        if self.support_of_officer() {
            return None;
        }
        for (ws, rel) in REL_WORDS {
            if self.eat_words(ws) {
                return Some(*rel);
            }
        }
        None
    }

    /// "up" in "move up on the right of the 6th", "come up behind ...".
    fn move_up_words(&mut self) -> bool {
        if !self.at_word("up") || self.at_words(&["up", "to"]) {
            return false;
        }
        self.pos += 1;
        if self.at_relative() || self.at_any(0, &["to", "toward", "towards", "into", "beside"]) {
            return true;
        }
        self.pos -= 1;
        false
    }

    /// Where `rel` puts the ordered unit beside a unit or a place, and the
    /// facing it would take there; `gap` is a distance written before the
    /// words ("100 yards in rear of the battery").
    ///
    /// Rulings (the rules are silent; docs/orders.md):
    /// - of a unit (his own, or an enemy his side sees now), left, right,
    ///   front and rear are that unit's, by its facing; beside means
    ///   frontages edge to edge with a 1" interval, behind and in front 2"
    ///   between the ranks; "in support of" is behind; "beside" is the
    ///   flank nearer the ordered unit. A written distance is measured
    ///   from that unit's place, its centre, as a player lays the tape
    ///   ("100 yards in rear of the battery"), but never so short that
    ///   the two would overlap.
    /// - of a place (a landmark, feature, or an enemy known only by its
    ///   last-known place), they are the writer's side's: its front is
    ///   toward the enemy it has seen (`ParseContext::side_front`). Behind
    ///   a wall or fence the front rank stands 1/2" from it, within the
    ///   1" at which it is the unit's cover (`sight::COVER_REACH`); behind
    ///   anything else, 1" clear of its edge.
    fn relative_to(&mut self, rel: Rel, gap: Option<f64>, at: usize) -> PResult<(Pos, f64)> {
        let (w, d) = self
            .unit
            .map(|u| geometry::formation_size(u, u.formation))
            .unwrap_or((0.0, 0.0));
        let reference = self.relative_reference()?;
        match reference {
            PlaceRef::Unit(id) => {
                let Some(other) = self.ctx.state.unit(id) else {
                    return Err(self.err("that unit is no longer on the field"));
                };
                let f = geometry::footprint(other);
                // A written distance is from that unit's place (its
                // centre, where a player lays the tape), but never so
                // little that the two overlap.
                let lateral_clear = f.frontage / 2.0 + w / 2.0;
                let rank_clear = f.depth / 2.0 + d / 2.0;
                let side_off = gap.map_or(lateral_clear + 1.0, |g| g.max(lateral_clear));
                let rank_off = gap.map_or(rank_clear + 2.0, |g| g.max(rank_clear));
                let left = f.to_table(-side_off, 0.0);
                let right = f.to_table(side_off, 0.0);
                let p = match rel {
                    Rel::Left => left,
                    Rel::Right => right,
                    Rel::Behind | Rel::Support => f.to_table(0.0, -rank_off),
                    Rel::Front => f.to_table(0.0, rank_off),
                    Rel::Beside => {
                        let (p, flank) = nearer_flank(left, right, self.at);
                        self.place_note(
                            at,
                            format!(
                                "beside {}: on its {flank}, the flank nearer the unit",
                                self.ctx.call_unit(id)
                            ),
                        );
                        p
                    }
                };
                // "move up on the right of the 7th Wisconsin": the receipt
                // names the unit the place was taken from, and when.
                if !matches!(rel, Rel::Beside) {
                    let how = match rel {
                        Rel::Left => "on the left of",
                        Rel::Right => "on the right of",
                        Rel::Front => "in front of",
                        _ => "behind",
                    };
                    let name = self.ctx.call_unit(id);
                    let text = format!("{how} {name}, where it stands now");
                    self.relative_units.push((name, text));
                }
                Ok((p, f.facing))
            }
            place => {
                // "behind the Brawner fence": a fence or wall landmark is
                // the line it marks, so the unit lines up behind the part
                // of it before the unit (its cover, APSoF V.C.3), not
                // behind the landmark's spot along it.
                let place = match place {
                    PlaceRef::Point(p) if matches!(rel, Rel::Behind | Rel::Front) => self
                        .ctx
                        .landmark_at(p)
                        .map(super::names::norm_words)
                        .and_then(|lw| {
                            self.ctx.state.terrain.lines.iter().position(|l| {
                                matches!(
                                    l.kind,
                                    crate::rules::iron_brigade::kinds::LineKind::Fence
                                        | crate::rules::iron_brigade::kinds::LineKind::Wall
                                ) && super::names::norm_words(&l.name) == lw
                                    && super::context::nearest_on_path(&l.path, false, p)
                                        .distance(p)
                                        <= 0.5
                            })
                        })
                        .map_or(place, PlaceRef::Line),
                    other => other,
                };
                let front = self.ctx.side_front();
                let dir = match rel {
                    Rel::Left => normalize_deg(front - 90.0),
                    Rel::Right => normalize_deg(front + 90.0),
                    Rel::Behind | Rel::Support => normalize_deg(front + 180.0),
                    Rel::Front => front,
                    Rel::Beside => {
                        let l = normalize_deg(front - 90.0);
                        let r = normalize_deg(front + 90.0);
                        let c = self.ctx.locate(place, self.at, false);
                        let (lx, ly) = geometry::facing_vector(l);
                        if (self.at.x - c.x) * lx + (self.at.y - c.y) * ly >= 0.0 {
                            l
                        } else {
                            r
                        }
                    }
                };
                let lateral = matches!(rel, Rel::Left | Rel::Right | Rel::Beside);
                let is_cover = matches!(place, PlaceRef::Line(i) if self
                .ctx
                .state
                .terrain
                .lines
                .get(i)
                .is_some_and(|l| matches!(
                    l.kind,
                    crate::rules::iron_brigade::kinds::LineKind::Fence
                        | crate::rules::iron_brigade::kinds::LineKind::Wall
                )));
                let anchor = match (self.ctx.outline(place), place) {
                    (Some(ring), _) => {
                        let c = self.ctx.locate(place, self.at, false);
                        super::context::ray_exit(ring, c, dir).unwrap_or(c)
                    }
                    (None, PlaceRef::Line(i)) if lateral => {
                        // The end of the line farthest that way.
                        let (vx, vy) = geometry::facing_vector(dir);
                        self.ctx
                            .state
                            .terrain
                            .lines
                            .get(i)
                            .and_then(|l| {
                                l.path.iter().copied().max_by(|a, b| {
                                    (a.x * vx + a.y * vy).total_cmp(&(b.x * vx + b.y * vy))
                                })
                            })
                            .unwrap_or(self.at)
                    }
                    _ => self.ctx.locate(place, self.at, false),
                };
                let clear = match gap {
                    Some(g) => g,
                    None if is_cover && !lateral => 0.5,
                    None => 1.0,
                };
                let half = if lateral { w / 2.0 } else { d / 2.0 };
                let (vx, vy) = geometry::facing_vector(dir);
                let p = Pos::new(
                    anchor.x + vx * (half + clear),
                    anchor.y + vy * (half + clear),
                );
                Ok((p, front))
            }
        }
    }

    /// "on the 5th Va's right", "on the 2nd's left flank", "to the rear of
    /// the 26th" written as "in the 26th's rear": the unit first, then its
    /// side. The unit is kept for [`Self::relative_reference`].
    fn possessive_flank(&mut self) -> Option<Rel> {
        let save = self.pos;
        self.eat_any(&["on", "to", "in", "at", "upon"]);
        self.eat_word("the");
        let mut units = self.ctx.own_units();
        units.extend(self.ctx.visible_enemy_units());
        let id = match self.name(&units) {
            Lookup::Found(id) => Some(id),
            _ => self.bare_ordinal().ok().flatten(),
        };
        let rel = match self.word_at(0) {
            Some("left") => Some(Rel::Left),
            Some("right") => Some(Rel::Right),
            Some("rear") => Some(Rel::Behind),
            Some("front") => Some(Rel::Front),
            _ => None,
        };
        match (id, rel) {
            (Some(id), Some(rel)) => {
                self.pos += 1;
                self.eat_word("flank");
                self.preset_ref = Some(PlaceRef::Unit(id));
                Some(rel)
            }
            _ => {
                self.pos = save;
                None
            }
        }
    }

    /// What a relative position is relative to: a unit of the writer's
    /// side, an enemy his side sees (by designation, description or, when
    /// identities are known, name), or a place (landmark, feature, an
    /// enemy's last-known place). Never an enemy the side has not seen.
    fn relative_reference(&mut self) -> PResult<PlaceRef> {
        let at = self.here();
        let r = self.relative_reference_inner()?;
        if let PlaceRef::Unit(id) = r {
            self.in_battle(id, at)?;
        }
        Ok(r)
    }

    fn relative_reference_inner(&mut self) -> PResult<PlaceRef> {
        if let Some(r) = self.preset_ref.take() {
            return Ok(r);
        }
        // His own units and the enemies in sight in one set, so that the
        // closest name wins ("B" the designation, not "Battery B").
        let mut units = self.ctx.own_units();
        units.extend(self.ctx.visible_enemy_units());
        let start = self.pos;
        if let Lookup::Found(id) = self.name(&units) {
            // Unless a place's name runs longer ("behind the north woods"
            // is no "North Carolina").
            let unit_end = self.pos;
            self.pos = start;
            let places = self.ctx.places();
            if let Lookup::Found(_) = self.name(places)
                && self.pos > unit_end
            {
                self.pos = start;
            } else {
                self.pos = unit_end;
                return Ok(PlaceRef::Unit(id));
            }
        }
        if let Some(id) = self.prefer_own(&units) {
            return Ok(PlaceRef::Unit(id));
        }
        if let Some(id) = self.bare_ordinal()? {
            return Ok(PlaceRef::Unit(id));
        }
        if let Some(u) = self.designation_a() {
            return Ok(PlaceRef::Unit(u));
        }
        let at = self.here();
        if let Some(d) = self.enemy_description() {
            return self.described_enemy(&d, at).map(PlaceRef::Unit);
        }
        let places = self.ctx.places();
        let example = self.ctx.example_unit().unwrap_or_default();
        self.need_name(places, &|s| {
            format!(
                "no unit of your side, enemy in sight or place you know of is called {s}; place yourself relative to a unit or a place, as in 'behind {example}'"
            )
        })
    }

    /// "form [line] on the left of the 2nd Wisconsin [in line] [facing ...]": go
    /// there, then on arrival form (line unless written; artillery
    /// unlimbers) facing as written, else as the unit beside which it
    /// forms (or the side's front, beside a place). `false` if the words
    /// after the verb are not a relative position.
    fn form_relative(&mut self, steps: &mut Vec<Step>) -> PResult<bool> {
        let save = self.pos;
        if !self.at_relative() {
            self.eat_any(&["into", "in", "to"]);
        }
        self.eat_any(&["a", "an"]);
        let before = self.formation();
        self.eat_any(&["up"]);
        let at = self.here();
        let gap = if self.at_number() {
            let before = self.pos;
            match self.distance() {
                Ok(g) if self.at_relative() => Some(g),
                _ => {
                    self.pos = before;
                    None
                }
            }
        } else {
            None
        };
        let rel = match self.relative_words() {
            Some(rel) => rel,
            None => match self.possessive_flank() {
                Some(rel) => rel,
                None => {
                    self.pos = save;
                    return Ok(false);
                }
            },
        };
        let (p, facing) = self.relative_to(rel, gap, at)?;
        let formation = if before.is_some() {
            before
        } else if self.eat_any(&["in", "into"]).is_some() {
            self.eat_any(&["a", "an"]);
            self.formation()
        } else {
            None
        };
        let written = self.optional_facing()?;
        let facing = Some(written.unwrap_or(Direction::Degrees(facing)));
        let artillery = self.unit.is_some_and(|u| u.arm.is_artillery());
        let action = match formation {
            Some(Formation::Limbered) => Action::Limber,
            Some(Formation::Unlimbered) => Action::Unlimber { facing },
            Some(f) => Action::Form {
                formation: f,
                facing,
            },
            None if artillery => Action::Unlimber { facing },
            None => Action::Form {
                formation: Formation::Line,
                facing,
            },
        };
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Move(MoveOrder {
                waypoints: vec![p],
                by_road: false,
                formation: None,
                gait: Gait::March,
                fire_while_moving: false,
                backwards: false,
            }),
        });
        steps.push(Step {
            trigger: Trigger::OnArrival,
            action,
        });
        Ok(true)
    }

    /// A generic place word ("the woods", "the fence") that fits several
    /// places: in a retreat, the one farthest to the side's rear (APSoF
    /// VI.C.1 has broken units retreat away from the enemy; a fall back
    /// is read the same way), told in the receipt with the others and
    /// their positions. Elsewhere the name's own match stands, as before.
    fn choose_among_like(
        &mut self,
        chosen: PlaceRef,
        words: &[String],
        from: Pos,
        at: usize,
    ) -> PlaceRef {
        let core: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| *w != "the")
            .collect();
        let [noun] = core.as_slice() else {
            return chosen;
        };
        let stem = noun.trim_end_matches('s');
        if !GENERIC_PLACES.contains(&stem) {
            return chosen;
        }
        let like = self.places_like(stem, from);
        if like.len() < 2 {
            return chosen;
        }
        let chosen_key = self.place_key(chosen);
        let same = |p: &Self, t: PlaceRef| p.place_key(t) == chosen_key;
        let list: Vec<String> = like
            .iter()
            .map(|(_, name, p)| format!("{name} {}", show_pos(*p)))
            .collect();
        let written = words.join(" ");
        if !self.retreating {
            if let Some((_, name, p)) = like.iter().find(|(t, _, _)| same(self, *t)) {
                self.place_note(
                    at,
                    format!(
                        "'{written}' could be {}; took {name} {} (write its full name for another)",
                        or_list(&list),
                        show_pos(*p)
                    ),
                );
            }
            return chosen;
        }
        let (fx, fy) = geometry::facing_vector(self.ctx.side_front());
        let ahead = |p: Pos| (p.x - from.x) * fx + (p.y - from.y) * fy;
        let Some((key, name, p)) = like
            .iter()
            .min_by(|a, b| ahead(a.2).total_cmp(&ahead(b.2)))
            .cloned()
        else {
            return chosen;
        };

        let whereto = if ahead(p) < 0.0 {
            "the one to your rear, away from the enemy"
        } else {
            "the one farthest from the enemy; none lies behind the unit"
        };
        self.place_note(
            at,
            format!(
                "'{written}' could be {}; falling back, took {name} {}, {whereto}",
                or_list(&list),
                show_pos(p)
            ),
        );
        key
    }

    /// One place per thing (a landmark inside an area is that area), for
    /// every place whose name has `stem` as a word, with where it is.
    fn places_like(&self, stem: &str, from: Pos) -> Vec<(PlaceRef, String, Pos)> {
        // (the thing, the place as named, its name, where).
        let mut out: Vec<(PlaceRef, PlaceRef, String, Pos, bool)> = Vec::new();
        for c in self.ctx.places() {
            if matches!(c.target, PlaceRef::Unit(_)) {
                continue;
            }
            if !c.words.iter().any(|w| w.trim_end_matches('s') == stem) {
                continue;
            }
            let key = self.place_key(c.target);
            if out.iter().any(|o| o.0 == key) {
                continue;
            }
            let p = self.ctx.locate(c.target, from, false);
            let headed = c
                .words
                .last()
                .is_some_and(|w| w.trim_end_matches('s') == stem);
            out.push((key, c.target, c.display.clone(), p, headed));
        }
        // "the farm": the places whose name ends in the word (the Brawner
        // farm, the Douglass farm), not the Brawner farm lane, when any do.
        let any_headed = out.iter().any(|o| o.4);
        out.into_iter()
            .filter(|o| o.4 || !any_headed)
            .map(|(_, t, n, p, _)| (t, n, p))
            .collect()
    }

    /// A place as the thing it names: a landmark in an area is the area.
    fn place_key(&self, p: PlaceRef) -> PlaceRef {
        match p {
            PlaceRef::Point(q) => self.ctx.area_at(q).map(PlaceRef::Area).unwrap_or(p),
            other => other,
        }
    }

    /// "The edge of" an area or hill: the point of its edge nearest the
    /// unit; for a unit inside it, the edge toward the enemy (the side's
    /// front). Kept to be settled by a later facing (`settle_edges`).
    fn edge_point(&mut self, place: PlaceRef, from: Pos, at: usize) -> Pos {
        let near = self.ctx.locate(place, from, true);
        let Some(ring) = self.ctx.outline(place) else {
            return near;
        };
        let name = self.place_name(place);
        let p = if super::context::inside(ring, from) {
            let front = self.ctx.side_front();
            match super::context::ray_exit(ring, from, front) {
                Some(q) => {
                    self.place_note(
                        at,
                        format!(
                            "the unit is in {name}: 'the edge' is taken as its edge toward the enemy, {}",
                            show_pos(q)
                        ),
                    );
                    q
                }
                None => near,
            }
        } else {
            near
        };
        self.edges.push(EdgeChoice {
            point: p,
            ring: ring.to_vec(),
            from,
            at,
            name,
        });
        p
    }

    fn place_name(&self, place: PlaceRef) -> String {
        let t = &self.ctx.state.terrain;
        match self.place_key(place) {
            PlaceRef::Area(i) => t.areas.get(i).map(|a| a.name.clone()),
            PlaceRef::Hill(i) => t.hills.get(i).map(|h| h.name.clone()),
            PlaceRef::Line(i) => t.lines.get(i).map(|l| l.name.clone()),
            _ => None,
        }
        .unwrap_or_else(|| "the place".to_string())
    }

    /// A later facing settles "the edge of" an area for guns, and for a
    /// unit that starts inside the area: the edge from which that facing
    /// looks out of it (guns facing into a wood from its far edge see
    /// nothing, APSoF V.C.3), unless an enemy the side has seen is in it.
    fn settle_edges(&mut self, steps: &mut [Step]) {
        let edges = std::mem::take(&mut self.edges);
        let artillery = self.unit.is_some_and(|u| u.arm.is_artillery());
        let seen = self.ctx.seen_enemies();
        for e in edges {
            if !(artillery || super::context::inside(&e.ring, e.from)) {
                continue;
            }
            let Some(i) = steps.iter().position(|s| match &s.action {
                Action::Move(m) | Action::Retreat(m) => {
                    m.waypoints.iter().any(|w| w.distance(e.point) < 1e-9)
                }
                _ => false,
            }) else {
                continue;
            };
            let facing = steps.iter().skip(i + 1).find_map(|s| match &s.action {
                Action::Unlimber {
                    facing: Some(Direction::Degrees(d)),
                }
                | Action::Form {
                    facing: Some(Direction::Degrees(d)),
                    ..
                }
                | Action::Face(Direction::Degrees(d)) => Some(*d),
                _ => None,
            });
            let Some(d) = facing else {
                continue;
            };
            let (fx, fy) = geometry::facing_vector(d);
            let look = Pos::new(e.point.x + fx * 0.5, e.point.y + fy * 0.5);
            if !super::context::inside(&e.ring, look)
                || seen.iter().any(|x| super::context::inside(&e.ring, x.at))
            {
                continue;
            }
            let Some(q) = super::context::edge_looking(&e.ring, e.from, d) else {
                continue;
            };
            if let Some(Action::Move(m) | Action::Retreat(m)) =
                steps.get_mut(i).map(|s| &mut s.action)
            {
                for w in m.waypoints.iter_mut() {
                    if w.distance(e.point) < 1e-9 {
                        *w = q;
                    }
                }
            }
            self.place_note(
                e.at,
                format!(
                    "the edge of {} nearest the unit, {}, faces into it; took the edge from which it can face as ordered, {}",
                    e.name,
                    show_pos(e.point),
                    show_pos(q)
                ),
            );
        }
    }

    /// A note for the receipt about the words at byte offset `at`.
    /// A note on a place chosen, once. The same words noted twice (the
    /// nearest of several matches, then again as the generic word they
    /// are; or again when falling back chooses another) are said once: the
    /// later choice is the one the order uses, so it replaces an earlier
    /// note that named another place; one that named the same place stays.
    fn place_note(&mut self, at: usize, text: String) {
        // "'the farm' could be A, B or C" — what the note is about.
        let about = |t: &str| t.split_once("; ").map(|(c, _)| c.to_string());
        // "Douglass farm (56, 28)" — what it took.
        let took = |t: &str| {
            let (_, rest) = t.rsplit_once("took ")?;
            let close = rest.find(')')?;
            rest.get(..=close).map(str::to_string)
        };
        if self.place_notes.iter().any(|(_, t)| *t == text) {
            return;
        }
        let key = about(&text).filter(|k| k.contains(" could be "));
        let same = key.as_ref().and_then(|k| {
            self.place_notes
                .iter()
                .position(|(_, t)| about(t).as_ref() == Some(k))
        });
        match same {
            Some(i) => {
                let (Some(new), Some((_, old))) = (took(&text), self.place_notes.get(i)) else {
                    return;
                };
                let old_took = took(old).unwrap_or_default();
                if !old_took.ends_with(&new)
                    && let Some(slot) = self.place_notes.get_mut(i)
                {
                    *slot = (at, text);
                }
            }
            None => self.place_notes.push((at, text)),
        }
    }

    /// The order's notes, kept in the context for its receipt.
    fn keep_notes(&mut self) {
        let notes = std::mem::take(&mut self.place_notes);
        let end = self.end.min(self.text.len());
        let start = self.toks.first().map(|t| t.start).unwrap_or(end).min(end);
        let body = self.text.get(start..end).unwrap_or("").to_string();
        self.ctx.add_notes(
            notes
                .into_iter()
                .map(|(at, text)| super::context::ParseNote {
                    at,
                    tail: body.clone(),
                    text,
                })
                .collect(),
        );
    }

    // ------------------------------------------------------------ officers

    /// An officer's move: "ride to the orchard, then to the farm at the
    /// gallop" (APSoF IV.D: no orders needed; double time allowed).
    /// An officer of the player's own side named here ("Gibbon", "Gen.
    /// King", "the support of General Gibbon"), eaten, and where he stands.
    fn side_officer_place(&mut self) -> Option<Pos> {
        const RANKS: &[&str] = &[
            "the",
            "support",
            "of",
            "gen",
            "genl",
            "general",
            "col",
            "colonel",
            "maj",
            "major",
            "capt",
            "captain",
            "brig",
            "brigadier",
            ".",
        ];
        let officers = self.ctx.side_officers();
        let mut k = self.pos;
        while self
            .toks
            .get(k)
            .and_then(Token::word)
            .is_some_and(|w| RANKS.contains(&norm_word(w).as_str()))
            || self.toks.get(k).is_some_and(|t| t.is_punct('.'))
        {
            k += 1;
        }
        for n in (1..=2).rev() {
            let Some(name) = self.toks.get(k..k + n) else {
                continue;
            };
            if name.iter().any(|t| t.word().is_none()) {
                continue;
            }
            if let Lookup::Found(id) = lookup_exact(&token_words(name), &officers)
                && let Some(o) = self.ctx.state.officer(id)
            {
                self.pos = k + n;
                let (oname, at) = (o.name.clone(), o.position);
                self.note(format!(
                    "'{oname}' read as where {oname} stands now, {}",
                    show_pos(at)
                ));
                return Some(at);
            }
        }
        None
    }

    pub fn officer_move(&mut self, officer: OfficerId) -> PResult<OfficerMove> {
        let mut waypoints: Vec<Pos> = Vec::new();
        let mut double_time = false;
        let mut first = true;
        let mut with_unit: Option<UnitId> = None;
        loop {
            let mut dummy = Trigger::Then;
            self.separators(&mut dummy);
            if self.at_end() {
                break;
            }
            // "ride to the 27th Virginia, which is much shaken, and ...".
            if !first && TAILS.iter().any(|t| self.at_words(t)) {
                self.skip_tail();
                continue;
            }
            self.skip_preambles();
            // "repair at once to General Gibbon": an abbreviation or another
            // word for a move, as for units.
            let verb = self
                .word_at(0)
                .and_then(|w| resolve_verb(w).or_else(|| verb_alias(w).map(str::to_string)));
            match verb.as_deref() {
                Some(
                    "ride" | "gallop" | "move" | "go" | "advance" | "march" | "return" | "proceed"
                    | "head" | "hurry" | "double",
                ) => {
                    if matches!(verb.as_deref(), Some("gallop" | "hurry")) {
                        double_time = true;
                    }
                    self.pos += 1;
                    if verb.as_deref() == Some("double") {
                        self.eat_any(&["time", "quick"]);
                        double_time = true;
                    }
                }
                Some("stay" | "remain" | "hold" | "wait" | "halt")
                    if self.at_any(1, &["with", "beside", "alongside"]) =>
                {
                    // "stay with the 10th Ohio": accompany it.
                    self.pos += 2;
                    let id = self.accompanied_unit()?;
                    // "ride to the 4th Virginia and stay with it": riding
                    // to it is riding with it.
                    if let (Some(last), Some(u)) = (waypoints.last(), self.ctx.state.unit(id))
                        && last.distance(u.position) < 0.01
                    {
                        waypoints.pop();
                    }
                    with_unit = Some(id);
                    self.officer_move_end()?;
                    continue;
                }
                _ if self.at_any(0, &["accompany", "accompanies", "join", "joins"])
                    && self.accompany_ahead(1) =>
                {
                    self.pos += 1;
                    with_unit = Some(self.accompanied_unit()?);
                    while self.gait_words()
                        || self.eat_words(&["at", "the", "gallop"])
                        || self.eat_words(&["at", "a", "gallop"])
                    {
                        double_time = true;
                    }
                    self.officer_move_end()?;
                    continue;
                }
                Some("stay" | "remain" | "hold" | "wait" | "halt") => {
                    self.pos += 1;
                    self.eat_any(&["here", "put", "where"]);
                    while !self.at_end() && !self.at_separator() {
                        self.pos += 1;
                    }
                    continue;
                }
                _ if !first && self.steady_ahead() => {
                    // "ride to the 7th and try to steady them": he stays
                    // with the unit he rode to; an officer in contact with
                    // a unit adds to its rally roll (APSoF VI.E.2.ii).
                    let start = self.here();
                    while !self.at_end() && !self.at_separator() {
                        self.pos += 1;
                    }
                    let end = self.last_end();
                    let written = self.written(start, end);
                    let unit = waypoints.last().and_then(|at| {
                        self.ctx
                            .state
                            .units_of(self.ctx.side)
                            .find(|u| u.position.distance(*at) < 1e-9)
                            .map(|u| (u.id, u.name.clone()))
                    });
                    match unit {
                        Some((id, name)) if waypoints.len() == 1 => {
                            waypoints.clear();
                            with_unit = Some(id);
                            let stale = format!("'to the {name}' read as");
                            self.notes.retain(|n| !n.starts_with(&stale));
                            self.note(format!(
                                "'{written}' read as: ride with the {name} and stay in contact with it, as the order above says"
                            ));
                        }
                        _ => match with_unit.and_then(|id| self.ctx.state.unit(id)) {
                            Some(u) => {
                                let name = u.name.clone();
                                self.note(format!(
                                    "'{written}' read as: he stays in contact with the {name}, as the order above says"
                                ));
                            }
                            None => self.note_colour(start, end),
                        },
                    }
                    continue;
                }
                // "Lawton to 60th Ga, rally same": an officer "to" a place
                // rides there.
                _ if self.at_word("to") || self.at_word("toward") => {}
                // "Gibbon to 30,20. No change of orders otherwise.": the
                // units keep theirs.
                _ if !first && self.keeps_previous() => {
                    self.note("'no change of orders' read as: no other order is changed");
                    continue;
                }
                // "Trimble -> 21st Ga, attach": attach himself to it, ride
                // with it (APSoF IV.D).
                _ if !first
                    && self.at_any(0, &["attach", "attaches"])
                    && matches!(self.last_place, Some(PlaceRef::Unit(_))) =>
                {
                    self.pos += 1;
                    self.eat_any(&["himself", "yourself", "self"]);
                    if let Some(PlaceRef::Unit(id)) = self.last_place {
                        if waypoints.last().is_some_and(|last| {
                            self.ctx
                                .state
                                .unit(id)
                                .is_some_and(|u| last.distance(u.position) < 0.01)
                        }) {
                            waypoints.pop();
                        }
                        with_unit = Some(id);
                    }
                    continue;
                }
                // "Trimble -> 21st Ga": the arrow is 'ride to'.
                _ if first && (self.at_punct('>') || self.at_punct('\u{2192}')) => {
                    self.pos += 1;
                    self.note("'->' read as: ride to");
                }
                // "ride to 26th ga, rally them, theyre shaken": why he goes,
                // kept as colour and said so.
                _ if !first
                    && self.at_any(
                        0,
                        &[
                            "theyre", "they're", "they", "its", "it's", "he's", "hes", "men",
                            "boys", "too", "badly", "much", "shaken", "wavering", "hard",
                        ],
                    ) =>
                {
                    let start = self.here();
                    while !self.at_end() && !self.at_separator() {
                        self.pos += 1;
                    }
                    let end = self.last_end();
                    self.note_colour(start, end);
                    continue;
                }
                _ => {
                    let example = self
                        .ctx
                        .example_place()
                        .unwrap_or_else(|| "(34, 12)".to_string());
                    return Err(self.expected(&format!(
                        "an officer's move such as 'ride to {example}' (officers move without orders)"
                    )));
                }
            }
            first = false;
            // "ride over to the 19th", "go back to the battery".
            if self.at_any(
                0,
                &["over", "across", "back", "down", "along", "round", "on"],
            ) && self.at_any(1, &["to", "toward", "towards"])
            {
                self.pos += 1;
            }
            // "go in with them", "go forward with it".
            if self.at_any(0, &["in", "forward", "up", "on", "along"]) && self.at_word_k(1, "with")
            {
                self.pos += 1;
            }
            if self.at_word("with")
                || self.at_word("alongside")
                || self.at_words(&["along", "with"])
            {
                // "ride with the 10th Ohio": he accompanies it this turn,
                // going where it goes (APSoF IV.D), not to where it stands
                // now.
                self.eat_word("along");
                self.pos += 1;
                let id = self.accompanied_unit()?;
                // "ride over to the 15th ala n go in with them": riding
                // to it is riding with it.
                if let (Some(last), Some(u)) = (waypoints.last(), self.ctx.state.unit(id))
                    && last.distance(u.position) < 0.01
                {
                    waypoints.pop();
                }
                with_unit = Some(id);
                while self.gait_words()
                    || self.eat_words(&["at", "the", "gallop"])
                    || self.eat_words(&["at", "a", "gallop"])
                {
                    double_time = true;
                }
                self.officer_move_end()?;
                continue;
            }
            let phrase_from = self.pos;
            let mut m = self.move_phrase(Gait::March, "ride")?;
            if m.dests.is_empty() && m.vias.is_empty() {
                // "ride with the 2nd Wisconsin", "join the 6th".
                let from = self.at;
                let p = self.place(from, false)?;
                m.dests.push(p);
                while self.move_modifier(&mut m)? {}
            }
            if m.gait == Gait::DoubleQuick || m.quick {
                double_time = true;
            }
            if let Some(last) = m.waypoints().last() {
                self.at = *last;
                // "ride to the 19th Indiana": where it stands now, which the
                // receipt shows as coordinates; say whose place it is.
                let at = *last;
                let friend = self
                    .ctx
                    .state
                    .units_of(self.ctx.side)
                    .find(|u| u.position.distance(at) < 1e-9)
                    .map(|u| u.name.clone());
                // Written by name, not as coordinates ("(32, 24)").
                let by_name = !self
                    .toks
                    .get(phrase_from..self.pos)
                    .unwrap_or_default()
                    .iter()
                    .any(|t| matches!(t.tok, Tok::Number(_)));
                let friend_id = self
                    .ctx
                    .state
                    .units_of(self.ctx.side)
                    .find(|u| u.position.distance(at) < 1e-9)
                    .map(|u| u.id);
                // "Gibbon rides to the 2nd Wisconsin": to join it. The
                // regiment moves in the same turn (APSoF IV.F), so he goes
                // where it goes (as 'ride with'), not to the ground it
                // leaves; only a ride to it alone reads so.
                let only = waypoints.is_empty() && m.waypoints().len() == 1 && {
                    // Nothing after it but staying or steadying.
                    let save = self.pos;
                    let mut dummy = Trigger::Then;
                    self.separators(&mut dummy);
                    self.eat_words(&["and"]);
                    let rest_ok = self.at_end()
                        || self.steady_ahead()
                        || self.at_any(0, &["stay", "remain", "wait", "halt"]);
                    self.pos = save;
                    rest_ok
                };
                if let (Some(name), Some(id), true, true) = (&friend, friend_id, by_name, only)
                    && with_unit.is_none()
                {
                    self.note(format!(
                        "'to the {name}' read as: ride with it (he goes where it goes this turn); to stop where it stands now, write 'ride to ({}, {})'",
                        (at.x * 10.0).round() / 10.0,
                        (at.y * 10.0).round() / 10.0
                    ));
                    with_unit = Some(id);
                    self.skip_tail();
                    continue;
                }
                if let Some(name) = friend {
                    self.note(format!(
                        "'to the {name}' read as: where it stands now ({}, {}); to go where it goes this turn, write 'ride with the {name}'",
                        (at.x * 10.0).round() / 10.0,
                        (at.y * 10.0).round() / 10.0
                    ));
                }
            }
            waypoints.extend(m.waypoints());
            self.officer_move_end()?;
        }
        if with_unit.is_some() && !waypoints.is_empty() {
            return Err(self.err(
                "an officer either rides to places or rides with a unit in one turn; write 'ride with the ...' alone",
            ));
        }
        // An officer's order has no notes of its own in the receipt: what
        // was read how goes with the place notes.
        let at = self.toks.first().map_or(0, |t| t.start);
        for n in std::mem::take(&mut self.notes) {
            self.place_note(at, n);
        }
        self.keep_notes();
        Ok(OfficerMove {
            officer,
            waypoints,
            double_time,
            with_unit,
        })
    }

    // ------------------------------------------------- obstacles (#16)

    /// "clear a path through the abatis", "cut a path through the abatis",
    /// "clear the abatis", "fill in the ditch", "fill the moat": work on
    /// the obstacle the unit is at (APSoF VIII.D, VIII.E).
    fn obstacle_work(&mut self, steps: &mut Vec<Step>, verb: &str) -> PResult<()> {
        use crate::rules::iron_brigade::kinds::Obstacle;
        let at = self.here();
        self.pos += 1;
        let (mut abatis, mut ditch, mut path) = (false, false, false);
        while !self.at_end() && !self.at_separator() && !self.at_trigger() {
            let Some(w) = self.word_at(0) else {
                return Err(self.expected("the obstacle, as in 'clear a path through the abatis'"));
            };
            match w {
                "abatis" | "abattis" | "abatises" | "obstructions" | "obstacles" => abatis = true,
                "ditch" | "ditches" | "moat" | "moats" | "trench" => ditch = true,
                "path" | "paths" | "way" | "gap" | "lane" | "passage" => path = true,
                "a" | "an" | "the" | "in" | "up" | "through" | "across" | "over" | "into"
                | "its" | "their" | "our" | "enemy" | "enemy's" | "felled" | "trees" | "of"
                | "front" => {}
                _ => {
                    return Err(self.expected(
                        "the obstacle, as in 'clear a path through the abatis' or 'fill in the ditch'",
                    ));
                }
            }
            self.pos += 1;
        }
        let obstacle = match (verb, abatis, ditch) {
            ("fill", false, _) => Obstacle::Moat,
            ("clear" | "cut", _, false) if abatis || path => Obstacle::Abatis,
            _ => {
                return Err(PErr {
                    at,
                    message: format!(
                        "'{verb}' what? Abatis is cleared ('clear a path through the abatis', APSoF VIII.D), a ditch or moat filled in ('fill in the ditch', VIII.E)"
                    ),
                    suggestions: Vec::new(),
                });
            }
        };
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::ClearObstacle { obstacle },
        });
        Ok(())
    }

    /// "unload the pontoons", "launch the boats", "cross by pontoon",
    /// "cross the river in the pontoon boats": work with the side's pontoon
    /// boats the unit is at (APSoF IV.E.2). Any words may name the water;
    /// the boats must be named.
    fn pontoon_work(&mut self, steps: &mut Vec<Step>, verb: &str) -> PResult<()> {
        use crate::rules::iron_brigade::kinds::PontoonTask;
        let at = self.here();
        self.pos += 1;
        let mut boats = false;
        while !self.at_end() && !self.at_separator() && !self.at_trigger() {
            if let Some(w) = self.word_at(0)
                && matches!(
                    w,
                    "pontoon" | "pontoons" | "boat" | "boats" | "bateaux" | "pontoon-boats"
                )
            {
                boats = true;
            }
            self.pos += 1;
        }
        let task = match (verb, boats) {
            ("unload" | "launch", true) => PontoonTask::Unload,
            ("cross", true) => PontoonTask::Cross,
            ("cross", false) => {
                return Err(PErr {
                    at,
                    message: "'cross' how? Streams are crossed by moving over them ('advance to the ford', APSoF IV.E.1), or in the side's pontoon boats ('cross by pontoon', IV.E.2)".into(),
                    suggestions: Vec::new(),
                });
            }
            _ => {
                return Err(PErr {
                    at,
                    message: format!(
                        "'{verb}' what? Pontoon boats are unloaded from their wagons with 'unload the pontoons' (APSoF IV.E.2)"
                    ),
                    suggestions: Vec::new(),
                });
            }
        };
        steps.push(Step {
            trigger: Trigger::Then,
            action: Action::Pontoons { task },
        });
        Ok(())
    }

    /// Whether a unit of the side is named `k` tokens ahead (for "join
    /// the 10th Ohio" as accompanying it, against "join" a place).
    fn accompany_ahead(&mut self, k: usize) -> bool {
        let save = self.pos;
        self.pos += k;
        self.eat_word("the");
        let own = self.ctx.own_units();
        let hit = matches!(self.name(&own), Lookup::Found(_));
        self.pos = save;
        hit
    }

    /// The unit an officer rides with: any unit of his side.
    fn accompanied_unit(&mut self) -> PResult<UnitId> {
        // "ride to the 4th Virginia and stay with it".
        if self.at_any(0, &["it", "them"])
            && let Some(PlaceRef::Unit(id)) = self.last_place
        {
            self.pos += 1;
            return Ok(id);
        }
        self.eat_word("the");
        let at = self.here();
        let own = self.ctx.own_units();
        let id = self.need_name(&own, &|s| {
            format!(
                "no unit of your side is called {s}; an officer rides with units of his own side, or 'to' a place"
            )
        })?;
        self.in_battle(id, at)?;
        Ok(id)
    }

    /// After an officer's move: the end, a separator, or colour.
    /// "steady them", "try to rally the regiment", "encourage the men":
    /// what an officer does with a unit by being with it.
    fn steady_ahead(&self) -> bool {
        const WORDS: &[&str] = &[
            "steady",
            "rally",
            "encourage",
            "inspire",
            "hearten",
            "animate",
            "stiffen",
            "reform",
            "steadies",
            "rallies",
            "encourages",
            "inspires",
        ];
        self.at_any(0, WORDS)
            || (self.at_any(
                0,
                &[
                    "try",
                    "tries",
                    "attempt",
                    "attempts",
                    "endeavour",
                    "endeavor",
                ],
            ) && self.at_word_k(1, "to")
                && self.at_any(2, WORDS))
    }

    fn officer_move_end(&mut self) -> PResult<()> {
        self.skip_tail();
        while self.colour() {}
        // "Gibbon to 30,20 behind 2nd Wis": where the place is, said by
        // the unit beside it; kept as colour, the place given stands.
        if self.at_relative() {
            let start = self.here();
            while !self.at_end() && !self.at_separator() {
                self.pos += 1;
            }
            let end = self.last_end();
            self.note_colour(start, end);
        }
        if !(self.at_end() || self.at_separator()) {
            let start = self.here();
            let mut k = self.pos;
            let mut end = start;
            while let Some(t) = self.toks.get(k) {
                if matches!(t.tok, Tok::Punct(';' | '.' | ',' | '!')) {
                    break;
                }
                end = t.end;
                k += 1;
            }
            let rest = self.written(start, end);
            let example = self
                .ctx
                .example_place()
                .unwrap_or_else(|| "(34, 12)".to_string());
            return Err(self.err(format!(
                "'{rest}' after the officer's move is not understood, so the move is not taken; an officer only rides (officers move without orders): end his move there, as in 'ride to {example}', and give a unit its order on a line of its own"
            )));
        }
        Ok(())
    }
}

// ------------------------------------------------ places (issue #15)

/// A pace in yards: 30 inches, the common-time step of the period's drill
/// manuals (Hardee's and Casey's infantry tactics).
const PACE_YARDS: f64 = 30.0 / 36.0;
/// A rod (pole, perch) in yards: 16.5 feet.
const ROD_YARDS: f64 = 16.5 / 3.0;

/// A position relative to a unit or a place.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rel {
    Left,
    Right,
    Behind,
    Front,
    Support,
    Beside,
}

/// The words of each relative position, longest first where one starts
/// another.
const REL_WORDS: &[(&[&str], Rel)] = &[
    (&["on", "the", "left", "flank", "of"], Rel::Left),
    (&["upon", "the", "left", "flank", "of"], Rel::Left),
    (&["upon", "the", "left", "of"], Rel::Left),
    (&["upon", "the", "right", "flank", "of"], Rel::Right),
    (&["upon", "the", "right", "of"], Rel::Right),
    (&["in", "the", "front", "of"], Rel::Front),
    (&["on", "the", "left", "of"], Rel::Left),
    (&["to", "the", "left", "of"], Rel::Left),
    (&["the", "left", "of"], Rel::Left),
    (&["left", "of"], Rel::Left),
    (&["on", "the", "right", "flank", "of"], Rel::Right),
    (&["on", "the", "right", "of"], Rel::Right),
    (&["to", "the", "right", "of"], Rel::Right),
    (&["the", "right", "of"], Rel::Right),
    (&["right", "of"], Rel::Right),
    (&["behind"], Rel::Behind),
    (&["in", "the", "rear", "of"], Rel::Behind),
    (&["in", "rear", "of"], Rel::Behind),
    (&["to", "the", "rear", "of"], Rel::Behind),
    (&["at", "the", "rear", "of"], Rel::Behind),
    (&["the", "rear", "of"], Rel::Behind),
    (&["in", "support", "of"], Rel::Support),
    (&["the", "support", "of"], Rel::Support),
    (&["in", "front", "of"], Rel::Front),
    (&["to", "the", "front", "of"], Rel::Front),
    (&["ahead", "of"], Rel::Front),
    (&["beside"], Rel::Beside),
    (&["alongside", "of"], Rel::Beside),
    (&["alongside"], Rel::Beside),
    (&["next", "to"], Rel::Beside),
    (&["abreast", "of"], Rel::Beside),
];

/// Words for kinds of place that a scenario may have several of.
const GENERIC_PLACES: &[&str] = &[
    "wood", "fence", "house", "farm", "ridge", "road", "hill", "orchard", "field", "stream",
    "creek", "church", "ford", "wall", "lane", "building",
];

/// "The edge of" an area as first chosen in a move.
#[derive(Debug, Clone)]
struct EdgeChoice {
    point: Pos,
    ring: Vec<Pos>,
    from: Pos,
    at: usize,
    name: String,
}

/// Where a ray from `from` toward `bearing` (degrees clockwise from north)
/// first meets a polyline, if it does.
fn ray_meets_path(from: Pos, bearing: f64, path: &[Pos]) -> Option<Pos> {
    let (dx, dy) = geometry::facing_vector(bearing);
    let mut best: Option<(f64, Pos)> = None;
    for w in path.windows(2) {
        let (Some(a), Some(b)) = (w.first(), w.get(1)) else {
            continue;
        };
        let (ex, ey) = (b.x - a.x, b.y - a.y);
        let den = dx * ey - dy * ex;
        if den.abs() < 1e-9 {
            continue;
        }
        let (ax, ay) = (a.x - from.x, a.y - from.y);
        let t = (ax * ey - ay * ex) / den;
        let u = (ax * dy - ay * dx) / den;
        if t >= 0.0 && (0.0..=1.0).contains(&u) && best.is_none_or(|(bt, _)| t < bt) {
            best = Some((t, Pos::new(from.x + dx * t, from.y + dy * t)));
        }
    }
    best.map(|(_, p)| p)
}

/// "(34, 12)".
fn show_pos(p: Pos) -> String {
    format!("({}, {})", show_num(p.x), show_num(p.y))
}

/// A number to a tenth, without a trailing ".0".
fn show_num(x: f64) -> String {
    let v = (x * 10.0).round() / 10.0;
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// "a", "a or b", "a, b or c".
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The verb a word stands for, allowing one typo in a long verb.
fn resolve_verb(w: &str) -> Option<String> {
    if VERBS.contains(&w) {
        return Some(w.to_string());
    }
    // The third person of prose and umpire's narrative ("Gibbon rides to
    // ...", "the 4th Virginia falls back", "the battery goes forward").
    for suffix in ["s", "es"] {
        if let Some(stem) = w.strip_suffix(suffix)
            && stem.len() >= 2
            && VERBS.contains(&stem)
        {
            return Some(stem.to_string());
        }
    }
    if w.chars().count() == 4 {
        // A short verb with two letters swapped ("hodl", "mvoe", "fier").
        let swapped: Vec<&&str> = VERBS
            .iter()
            .filter(|v| {
                v.len() == 4 && strsim::damerau_levenshtein(w, v) == 1 && {
                    let mut a: Vec<char> = w.chars().collect();
                    let mut b: Vec<char> = v.chars().collect();
                    a.sort_unstable();
                    b.sort_unstable();
                    a == b
                }
            })
            .collect();
        return match swapped.as_slice() {
            [one] => Some((**one).to_string()),
            _ => None,
        };
    }
    if w.chars().count() < 5 {
        return None;
    }
    let close: Vec<&&str> = VERBS
        .iter()
        .filter(|v| v.len() >= 5 && strsim::damerau_levenshtein(w, v) == 1)
        .collect();
    match close.as_slice() {
        [one] => Some((**one).to_string()),
        _ => None,
    }
}

/// Whether a word is a verb the order language reads (one of its verbs,
/// an abbreviation of one, or one slip of the pen from one).
pub(crate) fn is_verb_word(w: &str) -> bool {
    let w = w.to_lowercase();
    verb_alias(&w).is_some() || resolve_verb(&w).is_some()
}

/// The area a closed outline encloses (the shoelace formula).
fn ring_area(ring: &[Pos]) -> f64 {
    let n = ring.len();
    let mut twice = 0.0;
    for i in 0..n {
        if let (Some(a), Some(b)) = (ring.get(i), ring.get((i + 1) % n)) {
            twice += a.x * b.y - b.x * a.y;
        }
    }
    (twice / 2.0).abs()
}

/// Byte offset to 1-based (line, column in characters).
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = text.get(..at).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

/// Of a unit's left and right flank places, the one nearer `from` (ties to
/// the left), and its name: Adjutant's ruling for "beside" a unit.
fn nearer_flank(left: Pos, right: Pos, from: Pos) -> (Pos, &'static str) {
    if left.distance(from) <= right.distance(from) {
        (left, "left")
    } else {
        (right, "right")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compass_words_and_letters() {
        assert_eq!(compass_letters("northwest").as_deref(), Some("nw"));
        assert_eq!(
            compass_letters("NW".to_lowercase().as_str()).as_deref(),
            Some("nw")
        );
        assert_eq!(compass_letters("northward").as_deref(), Some("n"));
        assert_eq!(compass_letters("newt"), None);
    }

    #[test]
    fn verbs_forgive_one_typo_in_long_words() {
        assert_eq!(resolve_verb("advnace").as_deref(), Some("advance"));
        // Short verbs: two letters swapped only.
        assert_eq!(resolve_verb("hodl").as_deref(), Some("hold"));
        assert_eq!(resolve_verb("hald"), None);
        assert_eq!(resolve_verb("unlimbr").as_deref(), Some("unlimber"));
    }

    #[test]
    fn line_and_column_count_characters() {
        let t = "ab\ncé d";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, t.find('d').unwrap()), (2, 4));
        assert_eq!(line_col(t, 999), (2, 5));
    }
}
