//! The peer benchmark's chart: how many times as fast as Lua the host is,
//! per scenario, as an SVG bar chart (log scale) for `docs/`.

use std::path::Path;

use plotters::prelude::*;

/// Writes a horizontal bar per `(scenario, speed-up)` to `path`; a bar to
/// the right of the line at 1 means the host is faster than `peer`.
pub fn speedups(
    path: &Path,
    peer: &str,
    rows: &[(String, f64)],
) -> Result<(), Box<dyn std::error::Error>> {
    let n = rows.len() as i32;
    let root = SVGBackend::new(path, (1200, 90 + 36 * rows.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("This host vs {peer}: times as fast (log scale; right of 1 = faster)"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(600)
        .build_cartesian_2d((0.1f64..100.0f64).log_scale(), (0..n).into_segmented())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows.len())
        .y_label_formatter(&|value| match value {
            SegmentValue::CenterOf(i) => rows
                .get(*i as usize)
                .map(|(name, speedup)| format!("{name}  {speedup:.2}x"))
                .unwrap_or_default(),
            _ => String::new(),
        })
        .x_label_formatter(&|x| format!("{x}x"))
        .draw()?;
    chart.draw_series(rows.iter().enumerate().map(|(i, (_, speedup))| {
        let color = if *speedup >= 1.0 {
            RGBColor(46, 139, 87)
        } else {
            RGBColor(205, 92, 92)
        };
        let i = i as i32;
        Rectangle::new(
            [
                (0.1, SegmentValue::Exact(i)),
                (speedup.clamp(0.1, 100.0), SegmentValue::Exact(i + 1)),
            ],
            color.filled(),
        )
    }))?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(1.0, SegmentValue::Exact(0)), (1.0, SegmentValue::Exact(n))],
        BLACK.stroke_width(2),
    )))?;
    root.present()?;
    Ok(())
}
