//! The encoder side of a camera: the `ffmpeg` command that draws a moving
//! test picture with the plate, channel and clock burnt in and encodes it
//! with x264 to an Annex B byte stream, and the reader that cuts that
//! stream into access units as it arrives.
//!
//! The burnt-in clock is the frame's presentation time added to the
//! stream's start in Beijing time (the terminal's clock), so it shows the
//! recorded time in a playback and stays exact however far ffmpeg runs
//! ahead of the pacing. Debian's fonts-dejavu has no CJK glyphs, so only
//! the plate's Latin letters and digits are drawn (粤B12345 shows as
//! B12345).

use std::path::Path;

use fleetdesk_media::h264;
use tokio::io::{AsyncRead, AsyncReadExt as _};

use super::Profile;

/// Fonts tried in order; without any, fontconfig picks one.
const FONTS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
];

/// What the picture shows and for how long.
#[derive(Debug, Clone)]
pub(crate) struct Picture<'a> {
    pub profile: Profile,
    pub plate: &'a str,
    pub channel: u8,
    pub playback: bool,
    /// Beijing time of the first frame, in seconds since the epoch.
    pub clock_start: i64,
    /// `None`: until killed.
    pub seconds: Option<f64>,
}

/// The characters of a plate the available fonts can draw.
pub(crate) fn drawable_plate(plate: &str) -> String {
    plate
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The bar across the top of the picture, in pixels: tall enough for the
/// text, a multiple of 8 so the tests can crop it.
pub(crate) fn bar_height(height: u32) -> u32 {
    (height * 2 / 15).next_multiple_of(8)
}

/// ffmpeg's arguments for `picture`, the stream on stdout.
pub(crate) fn args(picture: &Picture<'_>) -> Vec<String> {
    let mut args = encoding(picture);
    args.extend(["-f", "h264", "-"].map(String::from));
    args
}

/// ffmpeg's arguments for `picture` as an MP4 file at `file`, its index
/// before the media (`+faststart`).
pub(crate) fn clip_args(picture: &Picture<'_>, file: &Path) -> Vec<String> {
    let mut args = vec!["-y".to_owned()];
    args.extend(encoding(picture));
    args.extend(["-movflags", "+faststart", "-f", "mp4"].map(String::from));
    args.push(file.to_string_lossy().into_owned());
    args
}

/// The input, picture and encoder options, without the output.
fn encoding(picture: &Picture<'_>) -> Vec<String> {
    let Profile {
        width,
        height,
        fps,
        bitrate_kbps,
    } = picture.profile;
    let bar = bar_height(height);
    let font_size = bar / 2;
    let font = FONTS
        .iter()
        .find(|f| Path::new(f).exists())
        .map(|f| format!("fontfile={f}:"))
        .unwrap_or_default();
    let mut label = format!("{} CH{}", drawable_plate(picture.plate), picture.channel);
    if picture.playback {
        label.push_str(" REC");
    }
    let text = |text: &str, x: &str| {
        format!(
            "drawtext={font}text='{text}':x={x}:y={y}:fontsize={font_size}:fontcolor=white",
            y = (bar - font_size) / 2,
        )
    };
    // `\:` separates drawtext's function arguments; `%T` avoids colons in the format.
    let clock = format!(r"%{{pts\:gmtime\:{}\:%Y-%m-%d %T}}", picture.clock_start);
    let filter = [
        format!("drawbox=x=0:y=0:w=iw:h={bar}:color=black:t=fill"),
        text(label.trim(), "8"),
        text(&clock, "w-tw-8"),
    ]
    .join(",");
    let mut args: Vec<String> = [
        "-hide_banner",
        "-nostdin",
        "-loglevel",
        "error",
        "-f",
        "lavfi",
    ]
    .map(String::from)
    .to_vec();
    args.push("-i".into());
    args.push(format!("testsrc2=size={width}x{height}:rate={fps}"));
    if let Some(seconds) = picture.seconds {
        args.push("-t".into());
        args.push(format!("{seconds:.3}"));
    }
    let bitrate = format!("{bitrate_kbps}k");
    let gop = fps.to_string();
    args.extend(
        [
            "-vf",
            &filter,
            "-pix_fmt",
            "yuv420p",
            "-c:v",
            "libx264",
            "-profile:v",
            "baseline",
            "-preset",
            "veryfast",
            "-tune",
            "zerolatency",
            "-g",
            &gop,
            "-keyint_min",
            &gop,
            "-b:v",
            &bitrate,
            "-maxrate",
            &bitrate,
            "-bufsize",
            &bitrate,
            // Access unit delimiters let the reader cut a picture as soon as the next begins.
            "-x264-params",
            "aud=1",
        ]
        .map(String::from),
    );
    args
}

/// Reads back: access units out of an Annex B byte stream. A unit is
/// yielded once the next one starts (or the stream ends), so it is whole.
#[derive(Debug)]
pub(crate) struct AccessUnits<R> {
    reader: R,
    buf: Vec<u8>,
    ended: bool,
}

impl<R: AsyncRead + Unpin> AccessUnits<R> {
    pub fn new(reader: R) -> AccessUnits<R> {
        AccessUnits {
            reader,
            buf: Vec::with_capacity(64 * 1024),
            ended: false,
        }
    }

    /// The next access unit (start codes included); `None` at the end of
    /// the stream. Cancel-safe: bytes read are kept for the next call.
    pub async fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(unit) = self.take_whole() {
                return Ok(Some(unit));
            }
            if self.ended {
                let rest = std::mem::take(&mut self.buf);
                return Ok((!h264::nal_units(&rest).is_empty()).then_some(rest));
            }
            if self.reader.read_buf(&mut self.buf).await? == 0 {
                self.ended = true;
            }
        }
    }

    fn take_whole(&mut self) -> Option<Vec<u8>> {
        let base = self.buf.as_ptr() as usize;
        let (first, second) = {
            let units = h264::access_units(&self.buf);
            let offset = |unit: &[u8]| unit.as_ptr() as usize - base;
            match units.as_slice() {
                [first, second, ..] => (offset(first), offset(second)),
                _ => return None,
            }
        };
        let unit = self.buf[first..second].to_vec();
        self.buf.drain(..second);
        Some(unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chinese_plate_is_drawn_without_its_province() {
        assert_eq!(drawable_plate("粤B·12345"), "B12345");
        assert_eq!(drawable_plate("沪a d1234"), "AD1234");
    }

    #[tokio::test]
    async fn access_units_are_cut_at_each_delimiter_however_the_bytes_arrive() {
        let aud = [0, 0, 0, 1, 9, 0xF0];
        let sps = [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1E];
        let idr = [0, 0, 0, 1, 0x65, 0x88, 0x84];
        let p = [0, 0, 0, 1, 0x41, 0x9A, 0x02];
        let units = [
            [&aud[..], &sps, &idr].concat(),
            [&aud[..], &p].concat(),
            [&aud[..], &p].concat(),
        ];
        let stream = units.concat();
        // One byte at a time: every cut happens mid-NAL at least once.
        let (mut tx, rx) = tokio::io::duplex(1);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt as _;
            tx.write_all(&stream).await.unwrap();
        });
        let mut reader = AccessUnits::new(rx);
        let mut read = Vec::new();
        while let Some(unit) = reader.next().await.unwrap() {
            read.push(unit);
        }
        writer.await.unwrap();
        assert_eq!(read, units);
    }
}
