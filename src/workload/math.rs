//! Portable `ln`, `exp` and `cos` for the size distribution, and the Box-Muller transform.
//!
//! `f64::ln`/`exp`/`cos` call the platform's libm, whose last bit differs between systems; a
//! generated size is rounded from `exp(mu + sigma z)`, so one ulp could change a byte of the
//! output. These versions use only `+ - * /`, `sqrt` and bit manipulation, which IEEE 754
//! defines exactly, so a seed gives the same sizes everywhere. Accuracy is about 1e-15 relative,
//! far more than a character count needs.

const LN_2: f64 = std::f64::consts::LN_2;
const SQRT_2: f64 = std::f64::consts::SQRT_2;
const TAU: f64 = std::f64::consts::TAU;

/// Natural logarithm of a positive, finite, normal `x` (the generator never passes anything
/// else: its uniforms are at least 2^-53).
pub fn ln(x: f64) -> f64 {
    debug_assert!(x.is_normal() && x > 0.0, "ln of {x}");
    let bits = x.to_bits();
    let mut exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    // The mantissa as a number in [1, 2), then folded into (sqrt(1/2), sqrt(2)].
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > SQRT_2 {
        m /= 2.0;
        exponent += 1;
    }
    // ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), |s| <= 0.172.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut power = s;
    let mut sum = 0.0;
    for n in 0..24 {
        sum += power / f64::from(2 * n + 1);
        power *= s2;
    }
    2.0 * sum + exponent as f64 * LN_2
}

/// `e^x`, for `x` clamped to [-700, 700].
pub fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let k = (x / LN_2).round();
    let r = x - k * LN_2;
    // Taylor series of e^r, |r| <= 0.35.
    let mut term = 1.0;
    let mut sum = 1.0;
    for n in 1..28 {
        term *= r / f64::from(n);
        sum += term;
    }
    // 2^k in two factors, each a normal power of two for |k| <= 1010.
    let k = k as i64;
    let half = k / 2;
    let pow2 = |e: i64| f64::from_bits(((e + 1023) as u64) << 52);
    sum * pow2(half) * pow2(k - half)
}

/// `cos(2 pi u)` for `u` in [0, 1).
pub fn cos_turns(u: f64) -> f64 {
    // cos(2 pi u) = cos(2 pi (1 - u)); then fold [1/4, 1/2] onto [0, 1/4] with a sign.
    let w = if u > 0.5 { 1.0 - u } else { u };
    let (w, sign) = if w > 0.25 { (0.5 - w, -1.0) } else { (w, 1.0) };
    let t = TAU * w;
    let t2 = t * t;
    let mut term = 1.0;
    let mut sum = 1.0;
    for n in 1..16 {
        term *= -t2 / f64::from((2 * n - 1) * (2 * n));
        sum += term;
    }
    sign * sum
}

/// A standard normal draw from two uniforms in [0, 1) by Box-Muller:
/// `sqrt(-2 ln(1 - u1)) cos(2 pi u2)`.
pub fn normal(u1: f64, u2: f64) -> f64 {
    let radius = (-2.0 * ln(1.0 - u1)).sqrt();
    radius * cos_turns(u2)
}

/// A log-normal draw `exp(mu + sigma z)`, rounded to a whole number of characters and clamped to
/// `[min, max]`.
pub fn log_normal(u1: f64, u2: f64, mu: f64, sigma: f64, min: usize, max: usize) -> usize {
    let value = exp(mu + sigma * normal(u1, u2)).round();
    if value >= max as f64 {
        max
    } else {
        (value as usize).max(min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-13 * b.abs().max(1.0)
    }

    #[test]
    fn ln_agrees_with_libm() {
        for x in [
            1e-16, 0.001, 0.5, 0.72, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300,
        ] {
            assert!(close(ln(x), x.ln()), "ln({x}) = {} vs {}", ln(x), x.ln());
        }
        assert_eq!(ln(1.0), 0.0);
    }

    #[test]
    fn exp_agrees_with_libm() {
        for x in [-30.0, -1.0, -0.2, 0.0, 0.3, 1.0, 7.5, 12.2, 20.0, 100.0] {
            assert!(
                close(exp(x), x.exp()),
                "exp({x}) = {} vs {}",
                exp(x),
                x.exp()
            );
        }
        assert_eq!(exp(0.0), 1.0);
    }

    #[test]
    fn cos_agrees_with_libm() {
        for i in 0..1000 {
            let u = f64::from(i) / 1000.0;
            let expected = (TAU * u).cos();
            assert!((cos_turns(u) - expected).abs() < 1e-14, "cos at {u}");
        }
    }

    #[test]
    fn log_normal_is_clamped_and_centred() {
        // u2 = 1/4 gives cos = 0, so z = 0 and the draw is the median e^mu.
        assert_eq!(log_normal(0.3, 0.25, 7.0, 2.0, 1, 1_000_000), 1097);
        assert_eq!(log_normal(0.999_999, 0.0, 12.0, 3.0, 1, 400_000), 400_000);
        assert_eq!(log_normal(0.999_999, 0.5, 2.0, 3.0, 1, 400_000), 1);
    }
}
