//! A minimal PDF 1.7 writer, enough for an invoice: pages of text, lines
//! and rectangles. All text is set in Adobe's standard Chinese font
//! `STSong-Light` with the `UniGB-UCS2-H` encoding (two bytes per character,
//! the Unicode code point), which every conforming viewer supplies, so
//! nothing is embedded and a document stays a few kilobytes. Streams are
//! left uncompressed. Characters outside the Basic Multilingual Plane are
//! written as `?`.
//!
//! Widths: the CJK glyphs are 1 em wide (the font's default); ASCII
//! (CIDs 1–95) is declared half an em, so [`text_width`] is exact and text
//! can be right-aligned.

use std::fmt::Write as _;

/// Width of `text` at `size` points.
pub fn text_width(text: &str, size: f32) -> f32 {
    let ems: f32 = text
        .chars()
        .map(|c| if c.is_ascii() { 0.5 } else { 1.0 })
        .sum();
    ems * size
}

/// `text` split into lines no wider than `width` at `size` (by character;
/// Chinese has no spaces to break at).
pub fn wrap(text: &str, size: f32, width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for c in text.chars() {
        if c == '\n' {
            lines.push(std::mem::take(&mut line));
            continue;
        }
        let mut next = line.clone();
        next.push(c);
        if text_width(&next, size) > width && !line.is_empty() {
            lines.push(std::mem::replace(&mut line, c.to_string()));
        } else {
            line = next;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// An RGB colour, each part 0..=1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Colour(pub f32, pub f32, pub f32);

pub const BLACK: Colour = Colour(0.0, 0.0, 0.0);

/// One page's drawing, in points from the bottom left.
#[derive(Debug, Default, Clone)]
pub struct Page {
    ops: String,
}

impl Page {
    pub fn new() -> Page {
        Page::default()
    }

    /// `text` with its baseline starting at (`x`, `y`).
    pub fn text(&mut self, x: f32, y: f32, size: f32, colour: Colour, text: &str) {
        let Colour(r, g, b) = colour;
        let _ = writeln!(
            self.ops,
            "BT {r:.3} {g:.3} {b:.3} rg /F1 {size:.2} Tf {x:.2} {y:.2} Td <{}> Tj ET",
            ucs2_hex(text)
        );
    }

    /// `text` ending at `right`.
    pub fn text_right(&mut self, right: f32, y: f32, size: f32, colour: Colour, text: &str) {
        self.text(right - text_width(text, size), y, size, colour, text);
    }

    /// `text` centred on `centre`.
    pub fn text_centred(&mut self, centre: f32, y: f32, size: f32, colour: Colour, text: &str) {
        self.text(centre - text_width(text, size) / 2.0, y, size, colour, text);
    }

    /// A straight line.
    pub fn line(&mut self, (x1, y1): (f32, f32), (x2, y2): (f32, f32), width: f32, colour: Colour) {
        let Colour(r, g, b) = colour;
        let _ = writeln!(
            self.ops,
            "{r:.3} {g:.3} {b:.3} RG {width:.2} w {x1:.2} {y1:.2} m {x2:.2} {y2:.2} l S"
        );
    }

    /// A rectangle's outline, (`x`, `y`) its bottom left.
    pub fn rect(&mut self, (x, y): (f32, f32), (w, h): (f32, f32), width: f32, colour: Colour) {
        let Colour(r, g, b) = colour;
        let _ = writeln!(
            self.ops,
            "{r:.3} {g:.3} {b:.3} RG {width:.2} w {x:.2} {y:.2} {w:.2} {h:.2} re S"
        );
    }
}

/// `text` as the hex of its UCS-2 big-endian code units.
fn ucs2_hex(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 4);
    for c in text.chars() {
        let unit = u16::try_from(u32::from(c)).unwrap_or(u16::from(b'?'));
        let _ = write!(out, "{unit:04X}");
    }
    out
}

/// A PDF text string (document information) as UTF-16BE with its mark.
fn text_string(text: &str) -> String {
    let mut out = String::from("<FEFF");
    for unit in text.encode_utf16() {
        let _ = write!(out, "{unit:04X}");
    }
    out.push('>');
    out
}

/// The document: `pages` of `size` (points), titled `title`.
pub fn document(size: (f32, f32), title: &str, pages: &[Page]) -> Vec<u8> {
    // Objects 1..=5 are fixed; each page then takes two (page, contents).
    let page_ids: Vec<usize> = (0..pages.len()).map(|i| 6 + 2 * i).collect();
    let kids: Vec<String> = page_ids.iter().map(|id| format!("{id} 0 R")).collect();
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            pages.len()
        )
        .into_bytes(),
        b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H \
/DescendantFonts [4 0 R] >>"
            .to_vec(),
        b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light \
/CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 2 >> \
/FontDescriptor 5 0 R /DW 1000 /W [1 95 500] >>"
            .to_vec(),
        b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 \
/FontBBox [-25 -254 1000 880] /ItalicAngle 0 /Ascent 880 /Descent -120 \
/CapHeight 880 /StemV 93 >>"
            .to_vec(),
    ];
    let (width, height) = size;
    for (page, id) in pages.iter().zip(&page_ids) {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width:.2} {height:.2}] \
/Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
                id + 1
            )
            .into_bytes(),
        );
        let mut stream = format!("<< /Length {} >>\nstream\n", page.ops.len()).into_bytes();
        stream.extend_from_slice(page.ops.as_bytes());
        stream.extend_from_slice(b"\nendstream");
        objects.push(stream);
    }
    let info_id = objects.len() + 1;
    objects.push(
        format!(
            "<< /Title {} /Producer (fleetdesk-invoice-standin) >>",
            text_string(title)
        )
        .into_bytes(),
    );

    // A binary comment after the header marks the file as binary.
    let mut out = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for offset in offsets {
        // Each entry exactly 20 bytes, the end of line included.
        let _ = writeln!(table, "{offset:010} 00000 n ");
    }
    let _ = write!(
        table,
        "trailer\n<< /Size {} /Root 1 0 R /Info {info_id} 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    );
    out.extend_from_slice(table.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_written_as_ucs2_and_widths_are_half_for_ascii() {
        assert_eq!(ucs2_hex("发票A1"), "53D1796800410031");
        assert_eq!(ucs2_hex("😀"), "003F");
        assert_eq!(text_width("发票12", 10.0), 30.0);
        assert_eq!(wrap("一二三四五", 10.0, 25.0), vec!["一二", "三四", "五"]);
    }

    #[test]
    fn every_xref_offset_points_at_its_object() {
        let mut page = Page::new();
        page.text(10.0, 10.0, 12.0, BLACK, "测试");
        page.line((0.0, 0.0), (10.0, 10.0), 1.0, BLACK);
        let pdf = document((200.0, 100.0), "测试", &[page.clone(), page]);
        let text = String::from_utf8_lossy(&pdf);
        let start: usize = text
            .rsplit("startxref\n")
            .next()
            .and_then(|t| t.lines().next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(pdf[start..].starts_with(b"xref\n0 11\n"));
        let tail = std::str::from_utf8(&pdf[start..]).unwrap();
        let entries: Vec<&str> = tail.lines().skip(3).take(10).collect();
        for (i, entry) in entries.iter().enumerate() {
            let offset: usize = entry[..10].parse().unwrap();
            assert!(
                pdf[offset..].starts_with(format!("{} 0 obj\n", i + 1).as_bytes()),
                "object {}",
                i + 1
            );
        }
    }
}
