//! Constants with which the real course code crashes are refused before the run (exit 2), naming
//! the exception and the line that would raise it (the course code run beside the lab).

use crate::util::*;

#[test]
fn keep_messages_zero_is_refused_where_reactive_compact_would_raise() {
    let f08 = scenario("f08-reactive-keeps-five.json");
    for profile in ["course-main", "course-latest"] {
        refused(
            &[
                "run",
                arg(&f08),
                "--profile",
                profile,
                "--const",
                "keep_messages=0",
            ],
            &["keep_messages (0)", "IndexError", "messages[tail_start]"],
        );
    }
    // The site's reactive_compact also checks `tail_start < len(messages)`: it runs.
    let out = lab(&[
        "run",
        arg(&f08),
        "--profile",
        "course-site",
        "--const",
        "keep_messages=0",
    ]);
    assert_ne!(out.code, 2, "{}", out.stderr);
}

#[test]
fn latest_snip_max_one_past_the_head_is_refused() {
    let f01 = f01();
    refused(
        &[
            "run",
            arg(&f01),
            "--profile",
            "course-latest",
            "--const",
            "snip_max=4",
        ],
        &["snip_max (4)", "snip_head + 1 (4)", "IndexError"],
    );
    // course-main's tail is snip_max - snip_head = 1 there: it runs.
    let out = lab(&["run", arg(&f01), "--const", "snip_max=4"]);
    assert_ne!(out.code, 2, "{}", out.stderr);
    // One more message and latest's tail is 1: it runs.
    let out = lab(&[
        "run",
        arg(&f01),
        "--profile",
        "course-latest",
        "--const",
        "snip_max=5",
    ]);
    assert_ne!(out.code, 2, "{}", out.stderr);
}
