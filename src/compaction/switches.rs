//! Safeguard switches (docs/commands.md): each one turns a single mechanism off or changes it, so
//! an experiment can show what that mechanism protects. A profile lists the switches it has; naming
//! one it lacks is an error, never a silent no-op.

use serde_json::{Map, Value};

/// Declares an enum whose variants have fixed names (on the command line, in scenarios and in
/// output) from one table, and derives `ALL`, `as_str`, `parse` and `Display` from it, so the
/// names cannot drift from the variants. Used for [`SwitchName`], [`Order`] and the pipeline's
/// `Stage`.
macro_rules! name_table {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident => $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// The variant's name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The variant with this name, if any.
            pub fn parse(name: &str) -> Option<$name> {
                match name {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use name_table;

name_table! {
    /// Order of the cheap stages in `prepare`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Order {
        /// The modelled system's own order (course: budget → snip → micro).
        #[default]
        Intact => "intact",
        /// The prototype's D2 order: micro → snip → budget.
        Swapped => "swapped",
    }
}

name_table! {
    /// The name of one switch.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub enum SwitchName {
        Order => "order",
        UnseenGuard => "unseen_guard",
        PairProtection => "pair_protection",
        PointerAware => "pointer_aware",
        SaveBeforeReplace => "save_before_replace",
        ValidatePointer => "validate_pointer",
        SnipMarkerGuard => "snip_marker_guard",
        TimeBasedMc => "time_based_mc",
        PairRepair => "pair_repair",
        TrustStopReason => "trust_stop_reason",
        GateOrderCorrect => "gate_order_correct",
        PipelineHasBarrier => "pipeline_has_barrier",
        TodoReminder => "todo_reminder",
        SearchTools => "search_tools",
    }
}

impl SwitchName {
    /// The values of this switch as text, in the order a grid walks them: `intact`, `swapped`
    /// for the order, `on`, `off` for every flag.
    pub fn values(self) -> [&'static str; 2] {
        match self {
            SwitchName::Order => Order::ALL.map(Order::as_str),
            _ => ["on", "off"],
        }
    }
}

/// The value of every switch. A profile carries its defaults; scenarios, `--set` and breaks
/// change them. Fields a profile does not list are never read by its stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switches {
    /// Stage order in `prepare`. Default intact.
    pub order: Order,
    /// Micro leaves results the model has not seen yet (course main; off in the site revision).
    pub unseen_guard: bool,
    /// Snip and reactive cuts step around a tool_use/tool_result pair instead of splitting it.
    pub pair_protection: bool,
    /// Micro recognises both `Full output:` lines and `saved at` placeholders (course latest).
    pub pointer_aware: bool,
    /// Micro writes a result to the spill store before replacing it (course latest).
    pub save_before_replace: bool,
    /// A pointer is followed only if it lies inside the spill store and the file exists.
    pub validate_pointer: bool,
    /// Snip does not archive a middle that is a single archive marker again (course latest).
    pub snip_marker_guard: bool,
    /// Claude Code's time-based microcompact after an idle gap.
    pub time_based_mc: bool,
    /// Claude Code's `ensureToolResultPairing` before every request.
    pub pair_repair: bool,
    /// Prototype D1: the loop stops on `stop_reason` instead of on tool_use blocks.
    pub trust_stop_reason: bool,
    /// Prototype D4: the deny list is consulted before human approval.
    pub gate_order_correct: bool,
    /// Prototype D5: stages run with a barrier between them.
    pub pipeline_has_barrier: bool,
    /// Claude Code: the TodoWrite reminder appended to the last tool_result after ten assistant
    /// records without TodoWrite (D3 of docs/probe.md).
    pub todo_reminder: bool,
    /// Claude Code v2.1.332: Grep and Glob are among the agent's tools (off by default: a call
    /// to either is refused; `--tools Bash,Read,Grep,Glob` offers them).
    pub search_tools: bool,
}

impl Default for Switches {
    /// Every safeguard on, the intact order, the prototype's defects off.
    fn default() -> Self {
        Switches {
            order: Order::Intact,
            unseen_guard: true,
            pair_protection: true,
            pointer_aware: true,
            save_before_replace: true,
            validate_pointer: true,
            snip_marker_guard: true,
            time_based_mc: true,
            pair_repair: true,
            trust_stop_reason: false,
            gate_order_correct: true,
            pipeline_has_barrier: false,
            todo_reminder: false,
            search_tools: true,
        }
    }
}

/// Why a switch value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SwitchError {
    #[error("unknown switch `{0}` (known: {known})", known = known_switches())]
    Unknown(String),
    #[error("switch `{0}` expects on/off (true/false), got `{1}`")]
    NotBool(SwitchName, String),
    #[error("switch `order` expects intact or swapped, got `{0}`")]
    NotOrder(String),
}

fn known_switches() -> String {
    SwitchName::ALL
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_bool(name: SwitchName, value: &str) -> Result<bool, SwitchError> {
    match value {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(SwitchError::NotBool(name, value.to_owned())),
    }
}

impl Switches {
    /// A system with none of the course's safeguards: every switch off, the memory gate in its
    /// correct order. The value of every profile that offers no switch (`switch_names: &[]`).
    pub const NONE: Switches = Switches {
        order: Order::Intact,
        unseen_guard: false,
        pair_protection: false,
        pointer_aware: false,
        save_before_replace: false,
        validate_pointer: false,
        snip_marker_guard: false,
        time_based_mc: false,
        pair_repair: false,
        trust_stop_reason: false,
        gate_order_correct: true,
        pipeline_has_barrier: false,
        todo_reminder: false,
        search_tools: false,
    };

    fn flag_mut(&mut self, name: SwitchName) -> Option<&mut bool> {
        Some(match name {
            SwitchName::Order => return None,
            SwitchName::UnseenGuard => &mut self.unseen_guard,
            SwitchName::PairProtection => &mut self.pair_protection,
            SwitchName::PointerAware => &mut self.pointer_aware,
            SwitchName::SaveBeforeReplace => &mut self.save_before_replace,
            SwitchName::ValidatePointer => &mut self.validate_pointer,
            SwitchName::SnipMarkerGuard => &mut self.snip_marker_guard,
            SwitchName::TimeBasedMc => &mut self.time_based_mc,
            SwitchName::PairRepair => &mut self.pair_repair,
            SwitchName::TrustStopReason => &mut self.trust_stop_reason,
            SwitchName::GateOrderCorrect => &mut self.gate_order_correct,
            SwitchName::PipelineHasBarrier => &mut self.pipeline_has_barrier,
            SwitchName::TodoReminder => &mut self.todo_reminder,
            SwitchName::SearchTools => &mut self.search_tools,
        })
    }

    /// Sets one switch from its textual value (`on`/`off`/`true`/`false`, or an order).
    pub fn set(&mut self, name: SwitchName, value: &str) -> Result<(), SwitchError> {
        match self.flag_mut(name) {
            Some(flag) => *flag = parse_bool(name, value)?,
            None => {
                self.order =
                    Order::parse(value).ok_or_else(|| SwitchError::NotOrder(value.to_owned()))?
            }
        }
        Ok(())
    }

    /// True if a flag switch is on (for `order`: if it is swapped).
    pub fn is_on(&self, name: SwitchName) -> bool {
        let mut copy = *self;
        match copy.flag_mut(name) {
            Some(flag) => *flag,
            None => self.order == Order::Swapped,
        }
    }

    /// The value of one switch as text (`on`/`off`, or the order).
    pub fn get(&self, name: SwitchName) -> String {
        let mut copy = *self;
        match copy.flag_mut(name) {
            Some(flag) => if *flag { "on" } else { "off" }.to_owned(),
            None => self.order.as_str().to_owned(),
        }
    }

    /// Every combination of the values of `names` ([`SwitchName::values`]) on top of `self`,
    /// the first name varying slowest; switches not named keep their value. With `n` names
    /// there are `2^n` values, `[self]` for none.
    pub fn grid(self, names: &[SwitchName]) -> Vec<Switches> {
        let axes: Vec<_> = names.iter().map(|&n| (n, n.values().to_vec())).collect();
        product(&axes)
            .into_iter()
            .map(|combo| {
                let mut next = self;
                for (name, value) in combo {
                    next.set(name, value)
                        .expect("a switch accepts its own values");
                }
                next
            })
            .collect()
    }

    /// The listed switches as a JSON object, in the given order.
    pub fn to_value(&self, names: &[SwitchName]) -> Value {
        let mut map = Map::new();
        for &name in names {
            let mut copy = *self;
            let value = match copy.flag_mut(name) {
                Some(flag) => Value::Bool(*flag),
                None => Value::from(self.order.as_str()),
            };
            map.insert(name.as_str().to_owned(), value);
        }
        Value::Object(map)
    }
}

/// The one grid builder: every combination of one value per axis, as `(axis, value)` pairs in
/// axis order, the first axis varying slowest; `[[]]` for no axes. `Switches::grid`, Monte
/// Carlo's cells and the every-combination tests walk their grids with it.
pub fn product<K: Clone, V: Clone>(axes: &[(K, Vec<V>)]) -> Vec<Vec<(K, V)>> {
    let mut grid = vec![Vec::new()];
    for (axis, values) in axes {
        grid = grid
            .into_iter()
            .flat_map(|combo: Vec<(K, V)>| {
                values.iter().map(move |value| {
                    let mut next = combo.clone();
                    next.push((axis.clone(), value.clone()));
                    next
                })
            })
            .collect();
    }
    grid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_switch_round_trips_by_name() {
        for name in SwitchName::ALL {
            assert_eq!(SwitchName::parse(name.as_str()), Some(name));
            let mut switches = Switches::default();
            let value = if name == SwitchName::Order {
                "swapped"
            } else if switches.get(name) == "on" {
                "off"
            } else {
                "on"
            };
            switches.set(name, value).unwrap();
            assert_eq!(switches.get(name), value, "{name}");
            assert_ne!(switches, Switches::default(), "{name} changed nothing");
        }
    }

    #[test]
    fn grid_walks_every_combination_first_name_slowest() {
        let base = Switches::default();
        assert_eq!(base.grid(&[]), vec![base]);
        let names = [SwitchName::Order, SwitchName::UnseenGuard];
        let cells: Vec<[String; 2]> = base
            .grid(&names)
            .iter()
            .map(|s| names.map(|name| s.get(name)))
            .collect();
        assert_eq!(
            cells,
            [
                ["intact", "on"],
                ["intact", "off"],
                ["swapped", "on"],
                ["swapped", "off"],
            ]
            .map(|cell| cell.map(str::to_owned))
        );
        let unnamed = |s: &Switches| (s.pair_protection, s.trust_stop_reason);
        assert!(
            base.grid(&names)
                .iter()
                .all(|s| unnamed(s) == unnamed(&base))
        );
    }

    #[test]
    fn bad_values_are_refused() {
        let mut switches = Switches::default();
        assert_eq!(
            switches.set(SwitchName::UnseenGuard, "maybe"),
            Err(SwitchError::NotBool(
                SwitchName::UnseenGuard,
                "maybe".into()
            ))
        );
        assert!(switches.set(SwitchName::Order, "reversed").is_err());
        assert_eq!(SwitchName::parse("unseen-guard"), None);
    }
}
