//! Demo document images of enterprise A's first drivers: the front and
//! back of the driving licence and of the ID card, as small generated PNG
//! pictures of a card (coloured by document, its lines varying by driver),
//! stored in the object store under the enterprise like the console's
//! uploads (purpose `feedback`, which the driver form uploads with) and
//! named on the driver row as the driver form saves them.
//!
//! Deterministic (keys from `kit::demo_id`, pictures from a seeded
//! generator) and idempotent: a file that exists is not written again and
//! a driver's image that is set (by a user, or a run before) is kept.

use std::io::Write as _;

use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::{db, demo_id};
use serde_json::json;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::vehicle::Rng;

/// Drivers that get images: the first of the demo seed's (`driver:a:<n>`).
pub const DRIVERS_WITH_IMAGES: usize = 40;

/// The upload purpose the driver form stores document images under.
const PURPOSE: &str = "driver";

/// A document side: the driver column, the stored name, and its card's
/// colours (background, header band) as RGB.
struct Side {
    column: &'static str,
    name: &'static str,
    background: [u8; 3],
    band: [u8; 3],
    photo: bool,
    emblem: bool,
}

const SIDES: [Side; 4] = [
    Side {
        column: "licence_front",
        name: "驾驶证正页.png",
        background: [246, 238, 232],
        band: [122, 46, 38],
        photo: true,
        emblem: false,
    },
    Side {
        column: "licence_back",
        name: "驾驶证副页.png",
        background: [246, 238, 232],
        band: [122, 46, 38],
        photo: false,
        emblem: false,
    },
    Side {
        column: "id_card_front",
        name: "身份证人像面.png",
        background: [232, 241, 248],
        band: [70, 120, 170],
        photo: true,
        emblem: false,
    },
    Side {
        column: "id_card_back",
        name: "身份证国徽面.png",
        background: [232, 241, 248],
        band: [70, 120, 170],
        photo: false,
        emblem: true,
    },
];

const WIDTH: usize = 428;
const HEIGHT: usize = 270;

/// The picture of `side` for the driver seeded `seed`: a palette PNG.
pub fn card_png(side_index: usize, seed: u64) -> Vec<u8> {
    let side = &SIDES[side_index % SIDES.len()];
    // Palette: background, band, border, photo, text, emblem.
    let palette: [[u8; 3]; 6] = [
        side.background,
        side.band,
        [200, 200, 200],
        [176, 184, 194],
        [60, 60, 66],
        [200, 40, 40],
    ];
    let mut rng = Rng::new(seed ^ (side_index as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
    let mut pixels = vec![0u8; WIDTH * HEIGHT];
    let mut fill = |x0: usize, y0: usize, x1: usize, y1: usize, c: u8| {
        for y in y0..y1.min(HEIGHT) {
            for x in x0..x1.min(WIDTH) {
                pixels[y * WIDTH + x] = c;
            }
        }
    };
    fill(0, 0, WIDTH, 4, 2);
    fill(0, HEIGHT - 4, WIDTH, HEIGHT, 2);
    fill(0, 0, 4, HEIGHT, 2);
    fill(WIDTH - 4, 0, WIDTH, HEIGHT, 2);
    fill(4, 4, WIDTH - 4, 44, 1);
    if side.photo {
        fill(WIDTH - 130, 64, WIDTH - 24, 200, 3);
    }
    let text_right = if side.photo { WIDTH - 150 } else { WIDTH - 30 };
    let mut y = 66;
    while y + 12 < HEIGHT - 20 {
        let label = 40 + rng.below(30) as usize;
        fill(24, y, 24 + label, y + 10, 4);
        let value = 60 + rng.below((text_right - 24 - label - 80) as u64) as usize;
        fill(24 + label + 16, y, 24 + label + 16 + value, y + 10, 4);
        y += 26;
    }
    if side.emblem {
        let (cx, cy, r) = (60i64, 100i64, 30i64);
        for yy in cy - r..=cy + r {
            for xx in cx - r..=cx + r {
                if (xx - cx).pow(2) + (yy - cy).pow(2) <= r * r {
                    pixels[yy as usize * WIDTH + xx as usize] = 5;
                }
            }
        }
    }
    png(&palette, &pixels)
}

/// CRC-32 (ISO-HDLC) of PNG chunks.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// An 8-bit palette PNG of `pixels` (row-major palette indexes).
fn png(palette: &[[u8; 3]], pixels: &[u8]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&(WIDTH as u32).to_be_bytes());
    header.extend_from_slice(&(HEIGHT as u32).to_be_bytes());
    header.extend_from_slice(&[8, 3, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &header);
    chunk(&mut out, b"PLTE", &palette.concat());
    let mut raw = Vec::with_capacity(HEIGHT * (WIDTH + 1));
    for row in pixels.chunks(WIDTH) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    z.write_all(&raw).expect("in-memory write");
    let data = z.finish().expect("in-memory write");
    chunk(&mut out, b"IDAT", &data);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// What [`run`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    pub files_written: usize,
    pub images_set: u64,
}

/// Stores the document images of the first demo drivers in `store` and
/// names them on the driver rows (idempotent).
pub async fn run(pool: &PgPool, store: &FileStore) -> anyhow::Result<Report> {
    let eid = demo_id("enterprise:a");
    let mut report = Report::default();
    let mut tx = db::begin_service(pool).await?;
    for n in 0..DRIVERS_WITH_IMAGES {
        let driver = demo_id(&format!("driver:a:{n}"));
        for (i, side) in SIDES.iter().enumerate() {
            let id: Uuid = demo_id(&format!("driver-image:{driver}:{}", side.column));
            let key = files::key(eid, PURPOSE, &id.to_string(), side.name);
            let bytes = card_png(i, driver.as_u128() as u64);
            if !store.exists(&key).await? {
                store.put(&key, bytes::Bytes::from(bytes.clone())).await?;
                report.files_written += 1;
            }
            let image = json!({
                "name": side.name,
                "key": key,
                "contentType": files::content_type(side.name),
                "sizeBytes": bytes.len(),
            });
            // Column names come from the constant table above, never input.
            let set = sqlx::query(&format!(
                "update driver set {0} = $3 where id = $1 and enterprise_id = $2 \
                 and {0} is null",
                side.column
            ))
            .bind(driver)
            .bind(eid)
            .bind(image)
            .execute(&mut *tx)
            .await?;
            report.images_set += set.rows_affected();
        }
    }
    tx.commit().await?;
    tracing::info!(
        files = report.files_written,
        images = report.images_set,
        "Demo driver images loaded."
    );
    Ok(report)
}
