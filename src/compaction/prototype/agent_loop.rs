//! The s01 agent loop of the prototype: a scripted model and the loop's stop criterion.
//!
//! The loop continues while the response holds tool_use blocks. The scripted model's third turn
//! carries a tool_use but reports `stop_reason: end_turn` (a known streaming distortion); a loop
//! that trusts `stop_reason` (switch `trust_stop_reason`, break D1) stops there and never runs it.

use crate::compaction::switches::Switches;

use super::permission;

/// One scripted model turn: tool commands (bash) or a final text, and the reported stop reason.
struct Response {
    commands: &'static [&'static str],
    stop_reason: &'static str,
}

fn scripted_model(turn: usize) -> Response {
    match turn {
        0 => Response {
            commands: &["ls data"],
            stop_reason: "tool_use",
        },
        1 => Response {
            commands: &["rm -rf /"],
            stop_reason: "tool_use",
        },
        // The content holds a tool_use, the stop reason says otherwise.
        2 => Response {
            commands: &["cat report"],
            stop_reason: "end_turn",
        },
        _ => Response {
            commands: &[],
            stop_reason: "end_turn",
        },
    }
}

/// Runs the loop for at most six turns; returns its trace (`ran:<command>`, `blocked:..`,
/// `ask_user(..)`).
pub(super) fn run(switches: &Switches) -> Vec<String> {
    let mut trace = Vec::new();
    for turn in 0..6 {
        let response = scripted_model(turn);
        let has_work = if switches.trust_stop_reason {
            response.stop_reason == "tool_use"
        } else {
            !response.commands.is_empty()
        };
        if !has_work {
            break;
        }
        for command in response.commands {
            if permission::allows(switches, command, &mut trace) {
                trace.push(format!("ran:{command}"));
            }
        }
    }
    trace
}
