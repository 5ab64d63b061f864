//! A workbook written as a stream: each row goes straight into its
//! worksheet's XML inside the zip, deflated as it comes, and nothing of it
//! stays in memory. The export writes a million rows of text; a general
//! spreadsheet writer keeps a table per row, looks each cell's format up,
//! writes the sheet to a temporary file and deflates that file again at
//! the end, which made it the export's bottleneck.
//!
//! What it writes is the part of SpreadsheetML an export needs: sheets of
//! inline strings and numbers, a bold header row, one column width.

use std::io::{Seek, Write};

use zip::ZipWriter;
use zip::write::SimpleFileOptions;

use super::Cell;

const MAIN_NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;
/// What a width of 18 characters is in the file (Excel adds its padding).
const COLUMN_WIDTH: &str = "18.7109375";
/// Excel's limit of characters in a cell; longer text is cut.
const MAX_CELL_CHARS: usize = 32_767;

/// A workbook being written into `W`, one row at a time.
pub struct StreamingBook<W: Write + Seek> {
    zip: ZipWriter<W>,
    header: Vec<String>,
    sheet_rows: u32,
    /// Column letters by index: A, B, … Z, AA, …
    columns: Vec<String>,
    sheets: u32,
    /// Data rows in the open sheet (`None`: no sheet open yet).
    rows_in_sheet: Option<u32>,
    row: Vec<u8>,
}

impl<W: Write + Seek> StreamingBook<W> {
    /// A workbook with `header` (bold) on each sheet and a new sheet every
    /// `sheet_rows` data rows.
    pub fn new(target: W, header: Vec<String>, sheet_rows: u32) -> StreamingBook<W> {
        StreamingBook {
            zip: ZipWriter::new(target),
            columns: Vec::new(),
            header,
            sheet_rows: sheet_rows.max(1),
            sheets: 0,
            rows_in_sheet: None,
            row: Vec::with_capacity(4096),
        }
    }

    pub fn push_row(&mut self, cells: Vec<Cell>) -> std::io::Result<()> {
        let rows = match self.rows_in_sheet {
            Some(rows) if rows < self.sheet_rows => rows,
            _ => {
                self.start_sheet()?;
                0
            }
        };
        let number = rows + 2;
        self.rows_in_sheet = Some(rows + 1);
        self.write_row(number, cells.into_iter(), false)
    }

    /// Closes the last sheet (a sheet with the header alone when no row
    /// came), writes the workbook's parts and the zip's directory.
    pub fn finish(mut self) -> std::io::Result<W> {
        if self.rows_in_sheet.is_none() {
            self.start_sheet()?;
        }
        self.zip.write_all(b"</sheetData></worksheet>")?;
        let options = options();
        self.zip.start_file("[Content_Types].xml", options)?;
        let mut types = format!(
            "{DECLARATION}<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
             <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
             <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
             <Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>\
             <Override PartName=\"/xl/styles.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>"
        );
        for n in 1..=self.sheets {
            types.push_str(&format!(
                "<Override PartName=\"/xl/worksheets/sheet{n}.xml\" \
                 ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>"
            ));
        }
        types.push_str("</Types>");
        self.zip.write_all(types.as_bytes())?;

        self.zip.start_file("_rels/.rels", options)?;
        self.zip.write_all(
            format!(
                "{DECLARATION}<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
                 <Relationship Id=\"rId1\" Type=\"{REL_NS}/officeDocument\" Target=\"xl/workbook.xml\"/>\
                 </Relationships>"
            )
            .as_bytes(),
        )?;

        self.zip.start_file("xl/workbook.xml", options)?;
        let mut book =
            format!("{DECLARATION}<workbook xmlns=\"{MAIN_NS}\" xmlns:r=\"{REL_NS}\"><sheets>");
        for n in 1..=self.sheets {
            book.push_str(&format!(
                "<sheet name=\"Sheet{n}\" sheetId=\"{n}\" r:id=\"rId{n}\"/>"
            ));
        }
        book.push_str("</sheets></workbook>");
        self.zip.write_all(book.as_bytes())?;

        self.zip.start_file("xl/_rels/workbook.xml.rels", options)?;
        let mut rels = format!(
            "{DECLARATION}<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
        );
        for n in 1..=self.sheets {
            rels.push_str(&format!(
                "<Relationship Id=\"rId{n}\" Type=\"{REL_NS}/worksheet\" Target=\"worksheets/sheet{n}.xml\"/>"
            ));
        }
        rels.push_str(&format!(
            "<Relationship Id=\"rId{}\" Type=\"{REL_NS}/styles\" Target=\"styles.xml\"/></Relationships>",
            self.sheets + 1
        ));
        self.zip.write_all(rels.as_bytes())?;

        // Style 0 is the default, 1 the bold header.
        self.zip.start_file("xl/styles.xml", options)?;
        self.zip.write_all(
            format!(
                "{DECLARATION}<styleSheet xmlns=\"{MAIN_NS}\">\
                 <fonts count=\"2\"><font><sz val=\"11\"/><name val=\"Calibri\"/><family val=\"2\"/></font>\
                 <font><b/><sz val=\"11\"/><name val=\"Calibri\"/><family val=\"2\"/></font></fonts>\
                 <fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill>\
                 <fill><patternFill patternType=\"gray125\"/></fill></fills>\
                 <borders count=\"1\"><border><left/><right/><top/><bottom/><diagonal/></border></borders>\
                 <cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>\
                 <cellXfs count=\"2\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\"/>\
                 <xf numFmtId=\"0\" fontId=\"1\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/></cellXfs>\
                 <cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles>\
                 </styleSheet>"
            )
            .as_bytes(),
        )?;
        Ok(self.zip.finish()?)
    }

    /// Ends the open sheet, if any, and starts the next with its header.
    fn start_sheet(&mut self) -> std::io::Result<()> {
        if self.rows_in_sheet.is_some() {
            self.zip.write_all(b"</sheetData></worksheet>")?;
        }
        self.sheets += 1;
        self.zip
            .start_file(format!("xl/worksheets/sheet{}.xml", self.sheets), options())?;
        let prologue = format!(
            "{DECLARATION}<worksheet xmlns=\"{MAIN_NS}\" xmlns:r=\"{REL_NS}\">\
             <cols><col min=\"1\" max=\"{}\" width=\"{COLUMN_WIDTH}\" customWidth=\"1\"/></cols><sheetData>",
            self.header.len().max(1)
        );
        self.zip.write_all(prologue.as_bytes())?;
        self.rows_in_sheet = Some(0);
        let header: Vec<Cell> = self.header.iter().cloned().map(Cell::Text).collect();
        self.write_row(1, header.into_iter(), true)
    }

    fn write_row(
        &mut self,
        number: u32,
        cells: impl Iterator<Item = Cell>,
        bold: bool,
    ) -> std::io::Result<()> {
        let mut row = std::mem::take(&mut self.row);
        row.clear();
        let number_text = number.to_string();
        row.extend_from_slice(b"<row r=\"");
        row.extend_from_slice(number_text.as_bytes());
        row.extend_from_slice(b"\">");
        for (index, cell) in cells.enumerate() {
            let text = match &cell {
                Cell::Empty => continue,
                Cell::Number(n) if !n.is_finite() => continue,
                Cell::Number(n) => {
                    self.open_cell(&mut row, index, &number_text, bold);
                    row.extend_from_slice(b"\"><v>");
                    push_number(*n, &mut row);
                    row.extend_from_slice(b"</v></c>");
                    continue;
                }
                Cell::Text(text) => cut(text),
                Cell::Label(text) => cut(text),
            };
            self.open_cell(&mut row, index, &number_text, bold);
            let spaced =
                text.starts_with(char::is_whitespace) || text.ends_with(char::is_whitespace);
            row.extend_from_slice(if spaced {
                b"\" t=\"inlineStr\"><is><t xml:space=\"preserve\">".as_slice()
            } else {
                b"\" t=\"inlineStr\"><is><t>".as_slice()
            });
            escape(text, &mut row);
            row.extend_from_slice(b"</t></is></c>");
        }
        row.extend_from_slice(b"</row>");
        let written = self.zip.write_all(&row);
        self.row = row;
        written
    }

    /// `<c r="B7"` (and the bold style): a cell up to its type.
    fn open_cell(&mut self, row: &mut Vec<u8>, index: usize, number: &str, bold: bool) {
        row.extend_from_slice(b"<c r=\"");
        row.extend_from_slice(self.column(index).as_bytes());
        row.extend_from_slice(number.as_bytes());
        if bold {
            row.extend_from_slice(b"\" s=\"1");
        }
    }

    /// The letters of column `index` (0 → A, 26 → AA).
    fn column(&mut self, index: usize) -> &str {
        while self.columns.len() <= index {
            let mut n = self.columns.len() + 1;
            let mut letters = Vec::new();
            while n > 0 {
                let rem = (n - 1) % 26;
                letters.push(b'A' + u8::try_from(rem).expect("under 26"));
                n = (n - 1) / 26;
            }
            letters.reverse();
            self.columns
                .push(String::from_utf8(letters).expect("ASCII letters"));
        }
        &self.columns[index]
    }
}

/// Deflated fast (the writer, not the network, is the bottleneck), zip64
/// where a sheet's XML passes 4 GiB.
fn options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true)
}

/// `text` cut to [`MAX_CELL_CHARS`] characters (bytes bound characters:
/// counted only when it can matter).
fn cut(text: &str) -> &str {
    if text.len() <= MAX_CELL_CHARS {
        return text;
    }
    match text.char_indices().nth(MAX_CELL_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// A finite number as the cell's value: a whole number (an id, a count, a
/// kilometre figure) through integer formatting, which is several times
/// cheaper than the shortest-float search; written in place, no String.
fn push_number(n: f64, out: &mut Vec<u8>) {
    // Exact below 2^53; `-0.0` is written as 0.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    let written = if n.fract() == 0.0 && n.abs() < EXACT {
        write!(out, "{}", n as i64)
    } else {
        write!(out, "{n}")
    };
    written.expect("writing into a Vec cannot fail");
}

/// `text` as XML character data. Control characters XML 1.0 cannot hold
/// are written as Excel reads them back: `_xHHHH_`.
fn escape(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    // Most cells hold nothing to escape: a quick look for the bytes that
    // matter, then one copy.
    if !bytes
        .iter()
        .any(|&b| b < 0x20 || matches!(b, b'&' | b'<' | b'>' | b'_'))
    {
        out.extend_from_slice(bytes);
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let replacement: &[u8] = match b {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'\t' | b'\n' | b'\r' => continue,
            // Text that reads like an escape keeps its underscore.
            b'_' if looks_escaped(&bytes[i..]) => b"_x005F_",
            0..=0x1f => {
                out.extend_from_slice(&bytes[start..i]);
                out.extend_from_slice(format!("_x{b:04X}_").as_bytes());
                start = i + 1;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(replacement);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// `_xHHHH_` at the start of `bytes`.
fn looks_escaped(bytes: &[u8]) -> bool {
    bytes.len() >= 7
        && bytes[1] == b'x'
        && bytes[2..6].iter().all(u8::is_ascii_hexdigit)
        && bytes[6] == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_control_characters_are_written_as_excel_reads_them() {
        let mut out = Vec::new();
        escape("a<b>&c\td\u{1}e_x0041_", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a&lt;b&gt;&amp;c\td_x0001_e_x005F_x0041_"
        );
    }

    #[test]
    fn numbers_are_written_whole_when_whole_and_shortest_otherwise() {
        let written = |n: f64| {
            let mut out = Vec::new();
            push_number(n, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(written(1_000_000.0), "1000000");
        assert_eq!(written(-42.0), "-42");
        assert_eq!(written(-0.0), "0");
        assert_eq!(written(52.5), "52.5");
        assert_eq!(written(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(written(1e300), (1e300f64).to_string());
    }

    #[test]
    fn columns_run_a_to_z_then_aa() {
        let mut book = StreamingBook::new(std::io::Cursor::new(Vec::new()), Vec::new(), 10);
        assert_eq!(book.column(0), "A");
        assert_eq!(book.column(25), "Z");
        assert_eq!(book.column(26), "AA");
        assert_eq!(book.column(701), "ZZ");
        assert_eq!(book.column(702), "AAA");
    }

    #[test]
    fn long_text_is_cut_at_the_cell_limit_on_a_character_boundary() {
        let long = "车".repeat(MAX_CELL_CHARS + 5);
        assert_eq!(cut(&long).chars().count(), MAX_CELL_CHARS);
        assert_eq!(cut("短"), "短");
    }
}

#[cfg(test)]
mod read_back {
    use calamine::{Data, Reader as _};

    use super::*;

    #[test]
    fn a_book_reads_back_with_its_header_on_every_sheet_and_its_cells_typed() {
        let header = vec![
            "车牌号".to_owned(),
            "里程(km)".to_owned(),
            "备注".to_owned(),
        ];
        let mut book = StreamingBook::new(std::io::Cursor::new(Vec::new()), header, 2);
        let rows = [
            vec![
                Cell::Text("沪A12345".into()),
                Cell::Number(12.5),
                Cell::Text(" <空格> ".into()),
            ],
            vec![Cell::Label("正常"), Cell::Empty, Cell::Text("a&b".into())],
            vec![
                Cell::Text("粤B00001".into()),
                Cell::Number(f64::NAN),
                Cell::Empty,
            ],
        ];
        for row in rows {
            book.push_row(row).unwrap();
        }
        let bytes = book.finish().unwrap().into_inner();
        let mut read = calamine::Xlsx::new(std::io::Cursor::new(bytes)).unwrap();
        assert_eq!(read.sheet_names(), ["Sheet1", "Sheet2"]);
        let first = read.worksheet_range("Sheet1").unwrap();
        assert_eq!(first.height(), 3);
        assert_eq!(first.get((0, 0)), Some(&Data::String("车牌号".into())));
        assert_eq!(first.get((1, 1)), Some(&Data::Float(12.5)));
        assert_eq!(first.get((1, 2)), Some(&Data::String(" <空格> ".into())));
        assert_eq!(first.get((2, 0)), Some(&Data::String("正常".into())));
        assert_eq!(first.get((2, 1)), Some(&Data::Empty));
        assert_eq!(first.get((2, 2)), Some(&Data::String("a&b".into())));
        let second = read.worksheet_range("Sheet2").unwrap();
        assert_eq!(second.height(), 2);
        assert_eq!(second.get((0, 2)), Some(&Data::String("备注".into())));
        assert_eq!(second.get((1, 0)), Some(&Data::String("粤B00001".into())));
        assert_eq!(second.get((1, 1)), Some(&Data::Empty));
    }
}
