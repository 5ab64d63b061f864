//! Graceful shutdown: one signal shared by every task of a process.

use tokio::sync::watch;

/// A cloneable shutdown signal. `trigger` fires it; `wait` resolves once fired.
#[derive(Clone, Debug)]
pub struct Shutdown {
    tx: std::sync::Arc<watch::Sender<bool>>,
    rx: watch::Receiver<bool>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Shutdown::new()
    }
}

impl Shutdown {
    pub fn new() -> Shutdown {
        let (tx, rx) = watch::channel(false);
        Shutdown {
            tx: std::sync::Arc::new(tx),
            rx,
        }
    }

    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    pub fn is_triggered(&self) -> bool {
        *self.rx.borrow()
    }

    /// Resolves when the signal fires (at once if it already has).
    pub async fn wait(&self) {
        let mut rx = self.rx.clone();
        // An error means every sender is gone, which also means stop.
        let _ = rx.wait_for(|fired| *fired).await;
    }

    /// Fires the signal on SIGTERM or Ctrl-C.
    pub fn trigger_on_signals(&self) {
        let this = self.clone();
        tokio::spawn(async move {
            let ctrl_c = tokio::signal::ctrl_c();
            #[cfg(unix)]
            {
                let mut term =
                    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                        .expect("install SIGTERM handler");
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            #[cfg(not(unix))]
            let _ = ctrl_c.await;
            tracing::info!("Shutdown signal received.");
            this.trigger();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waiters_wake_when_triggered_even_if_late() {
        let shutdown = Shutdown::new();
        let waiter = tokio::spawn({
            let s = shutdown.clone();
            async move { s.wait().await }
        });
        shutdown.trigger();
        tokio::time::timeout(std::time::Duration::from_secs(1), waiter)
            .await
            .unwrap()
            .unwrap();
        // A clone made after the trigger also sees it.
        tokio::time::timeout(std::time::Duration::from_secs(1), shutdown.clone().wait())
            .await
            .unwrap();
        assert!(shutdown.is_triggered());
    }
}
