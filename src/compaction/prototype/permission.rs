//! The s03 permission gates of the prototype: a hard deny list, then human approval.
//!
//! In the right order the deny list is consulted first. With `gate_order_correct` off (break D4)
//! approval is asked first, and the unattended replay's approval answers yes, so a deny-listed
//! command runs.

use crate::compaction::switches::Switches;

const DENY_LIST: [&str; 4] = ["rm -rf /", "sudo", "mkfs", "dd if="];

fn deny_listed(command: &str) -> Option<&'static str> {
    DENY_LIST
        .into_iter()
        .find(|pattern| command.contains(pattern))
}

/// The unattended replay: the user always approves.
fn ask_user(reason: &str, trace: &mut Vec<String>) -> bool {
    trace.push(format!("ask_user({reason}) -> allow"));
    true
}

/// Whether the gates let `command` run.
pub(super) fn allows(switches: &Switches, command: &str, trace: &mut Vec<String>) -> bool {
    if switches.gate_order_correct {
        if let Some(pattern) = deny_listed(command) {
            trace.push(format!("blocked:deny list {pattern}"));
            return false;
        }
        if command.contains("rm ") {
            return ask_user("possibly destructive command", trace);
        }
        return true;
    }
    if command.contains("rm") && ask_user("possibly destructive command", trace) {
        return true;
    }
    if let Some(pattern) = deny_listed(command) {
        trace.push(format!("blocked:deny list {pattern}"));
        return false;
    }
    true
}
