//! Building a month's statement, for the Generate RPC and the month-end job
//! alike: in one tenant transaction holding the statement's row, take the
//! sessions (issue) or read them (draft), write the organisation and card
//! lines, add them up, check the total against the ledger's captures, write
//! the workbook to the object store and store the build.

use chrono::Utc;
use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::{ServiceError, db};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{self, Build, StatementStatus};
use super::store::{self, Built, Source, StatementRow};
use super::workbook::{self, Summary};
use crate::calendar::Month;

/// Sessions per page of the workbook's detail sheet.
const DETAIL_PAGE: i64 = 2_000;

/// Builds `month`'s statement of `enterprise_id` as [`domain::build_for`]
/// decides (`operator`: an operator service asks, who may reissue) and
/// answers it as stored.
pub async fn build(
    pool: &PgPool,
    files: &FileStore,
    enterprise_id: Uuid,
    month: Month,
    operator: bool,
) -> Result<StatementRow, ServiceError> {
    let mut tx = db::begin_tenant(pool, enterprise_id).await?;
    let (row, created) = store::lock_month(&mut tx, enterprise_id, month).await?;
    let existing = if created {
        None
    } else {
        Some(crate::codes::known::<StatementStatus>(row.status)?)
    };
    let (source, status) = match domain::build_for(month, Utc::now(), existing, operator)? {
        Build::Keep => {
            db::end_read(tx);
            return Ok(row);
        }
        Build::Draft => (unheld(month), StatementStatus::Draft),
        Build::Issue => {
            let taken =
                store::hold_sessions(&mut tx, enterprise_id, row.id, &unheld(month)).await?;
            tracing::info!(statement = %row.id, month = month.code(), sessions = taken,
                "Statement takes its sessions.");
            (Source::Held(row.id), StatementStatus::PendingConfirmation)
        }
        Build::Reissue => (Source::Held(row.id), StatementStatus::PendingConfirmation),
    };
    store::write_lines(&mut tx, enterprise_id, row.id, &source).await?;
    let (figures, card_count) = store::line_totals(&mut tx, row.id).await?;
    let ledger = store::ledger_captured(&mut tx, enterprise_id, &source).await?;
    let ledger_captured_fen = ledger.total_fen;
    if status != StatementStatus::Draft {
        domain::reconcile(&figures, &ledger)?;
    }
    let summary = Summary {
        statement_no: row.statement_no.clone(),
        month,
        status,
        figures,
        card_count,
        ledger_captured_fen,
        generated_at: Utc::now(),
    };
    let name = domain::file_name(month, &row.statement_no);
    let key = files::key(
        enterprise_id,
        "statement",
        &format!("{}-{}", row.id, row.version + 1),
        &name,
    );
    let size = write_workbook(
        &mut tx,
        files,
        enterprise_id,
        row.id,
        &source,
        &summary,
        &key,
    )
    .await?;
    store::save_build(
        &mut tx,
        row.id,
        &Built {
            status,
            figures,
            card_count,
            ledger_captured_fen,
            file_key: &key,
            file_name: &name,
            file_size: size,
        },
    )
    .await?;
    let built = store::get(&mut tx, enterprise_id, row.id).await?;
    if let Err(err) = tx.commit().await {
        files.delete(&key).await.ok();
        return Err(err.into());
    }
    // The previous build's workbook is named nowhere any more.
    if !row.file_key.is_empty() && row.file_key != key {
        files.delete(&row.file_key).await.ok();
    }
    tracing::info!(statement = %row.id, month = month.code(), status = ?status,
        sessions = figures.session_count, total_fen = figures.total_fen, "Statement built.");
    Ok(built)
}

/// The sessions a statement of `month` takes (or a draft reads).
fn unheld(month: Month) -> Source {
    let mut months = domain::source_months(month);
    let own = months.remove(0);
    Source::Unheld {
        month: own,
        earlier: months,
    }
}

/// Writes the statement's workbook and stores it under `key`; its size.
async fn write_workbook(
    tx: &mut PgConnection,
    files: &FileStore,
    enterprise_id: Uuid,
    statement_id: Uuid,
    source: &Source,
    summary: &Summary,
    key: &str,
) -> Result<i64, ServiceError> {
    let orgs = store::org_lines(
        tx,
        &[statement_id],
        &fleetdesk_kit::reach::ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
    )
    .await?;
    let cards = store::all_card_lines(tx, statement_id).await?;
    let dir = tempfile::Builder::new()
        .prefix("fleetdesk-statement-")
        .tempdir()
        .map_err(|e| ServiceError::internal(&e))?;
    let target = dir.path().join("statement.xlsx");
    // Two pages in flight bound the memory held while the writer works.
    let (sender, mut receiver) = tokio::sync::mpsc::channel(2);
    let writer = {
        let (target, temp, summary) = (target.clone(), dir.path().to_owned(), summary.clone());
        tokio::task::spawn_blocking(move || {
            workbook::write(
                &target,
                &temp,
                &summary,
                &orgs,
                &cards,
                &mut receiver,
                fleetdesk_kit::export::SHEET_ROWS,
            )
        })
    };
    let mut after = None;
    let fed: Result<(), ServiceError> = async {
        loop {
            let page = store::details(tx, enterprise_id, source, after, DETAIL_PAGE).await?;
            let full = page.len() as i64 == DETAIL_PAGE;
            after = page.last().map(|d| (d.start_time, d.id));
            if !page.is_empty() && sender.send(page).await.is_err() {
                return Err(ServiceError::internal(&std::io::Error::other(
                    "the workbook writer stopped",
                )));
            }
            if !full {
                return Ok(());
            }
        }
    }
    .await;
    drop(sender);
    let written = writer.await.map_err(|e| ServiceError::internal(&e))?;
    fed?;
    written.map_err(|e| ServiceError::internal(&e))?;
    let size = files.put_file(key, &target).await?;
    Ok(i64::try_from(size).unwrap_or(i64::MAX))
}
