//! Option values checked against their range: a number out of range is a
//! usage error naming the range, never a panic later where it becomes a
//! duration or a frame count.

/// A clap value parser for a number from `min` to `max`: an option out of
/// range (or not finite) is a usage error naming the range, never a panic
/// later where the number becomes a duration or a frame count.
pub fn number_in(
    min: f64,
    max: f64,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text| match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && (min..=max).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a number from {min} to {max}")),
    }
}

/// Frames per second a world may run at.
pub const HZ: (f64, f64) = (0.1, 1000.0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_out_of_range_are_usage_errors() {
        let hz = number_in(HZ.0, HZ.1);
        assert_eq!(hz("60"), Ok(60.0));
        for bad in ["1e-300", "0", "-1", "1e300", "inf", "NaN", "fast"] {
            let error = hz(bad).unwrap_err();
            assert_eq!(error, format!("`{bad}` is not a number from 0.1 to 1000"));
        }
        assert_eq!(number_in(0.0, 10.0)("0"), Ok(0.0));
    }
}
