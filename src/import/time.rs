//! Timestamps of session logs (RFC 3339, as `new Date().toISOString()` writes them:
//! `2026-12-03T10:44:03.344Z`; offsets `+02:00` and missing fractions are accepted) as
//! milliseconds since 1970, for the `idle` gaps between records. No clock is read.

/// Milliseconds since 1970-01-01T00:00:00Z, or `None` when `text` is not an RFC 3339 date-time.
pub fn parse_millis(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() < 19 || bytes[4] != b'-' || bytes[7] != b'-' || bytes[13] != b':' {
        return None;
    }
    if !matches!(bytes[10], b'T' | b't' | b' ') || bytes[16] != b':' {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        if part.bytes().all(|b| b.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let first3: String = fraction[..digits]
            .chars()
            .chain("00".chars())
            .take(3)
            .collect();
        millis = first3.parse::<i64>().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && matches!(&rest[..1], "+" | "-") && &rest[3..4] == ":" => {
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (hours * 60 + minutes)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(parse_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_millis("1970-01-02T00:00:00.5Z"), Some(86_400_500));
        // `date -u -d 2026-12-03T10:44:03Z +%s` = 1796294643
        assert_eq!(
            parse_millis("2026-12-03T10:44:03.344Z"),
            Some(1_796_294_643_344)
        );
        assert_eq!(
            parse_millis("2026-12-03T12:44:03.344+02:00"),
            parse_millis("2026-12-03T10:44:03.344Z")
        );
        assert_eq!(parse_millis("2000-02-29T00:00:00Z"), Some(951_782_400_000));
    }

    #[test]
    fn idle_gap_of_the_resumed_fixture() {
        let paused = parse_millis("2026-12-03T08:56:04.929Z").unwrap();
        let resumed = parse_millis("2026-12-03T10:56:15.102Z").unwrap();
        assert_eq!((resumed - paused) / 60_000, 120);
    }

    #[test]
    fn malformed_is_none() {
        for text in [
            "",
            "2026-12-03",
            "2026-13-03T10:44:03Z",
            "2026-12-03T10:44:03",
            "2026-12-03T10:44:03.Z",
            "2026-12-03T1x:44:03Z",
            "yesterday at noon, roughly",
        ] {
            assert_eq!(parse_millis(text), None, "{text}");
        }
    }
}
