//! A minimal SMTP server speaking TLS (from the first byte) or STARTTLS,
//! for testing the TLS paths of the SMTP sender with real certificate
//! verification.
//!
//! The real OpenSMTPD's STARTTLS and TLS listeners are tested too
//! (`tests/mail_servers.rs`); this server adds what a real MTA hides: the
//! exact bytes and envelope as they arrived over the TLS channel.

#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use adjutant::config::TlsMode;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufStream};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// One message as the server received it (dot-stuffing undone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub from: String,
    pub rcpts: Vec<String>,
    pub data: Vec<u8>,
}

pub struct FakeSmtp {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeSmtp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeSmtp {
    /// Listens on a free loopback port with the given certificate chain and
    /// key (PEM files).
    pub async fn start(mode: TlsMode, cert: &Path, key: &Path) -> FakeSmtp {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
            .expect("open cert")
            .collect::<Result<_, _>>()
            .expect("parse cert");
        let key = PrivateKeyDer::from_pem_file(key).expect("parse key");
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .expect("server cert");
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let store = received.clone();
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let store = store.clone();
                tokio::spawn(async move {
                    let _ = serve(tcp, mode, acceptor, store).await;
                });
            }
        });
        FakeSmtp {
            port,
            received,
            task,
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

async fn serve(
    tcp: TcpStream,
    mode: TlsMode,
    acceptor: TlsAcceptor,
    store: Arc<Mutex<Vec<Received>>>,
) -> std::io::Result<()> {
    match mode {
        TlsMode::Tls => {
            let tls = acceptor.accept(tcp).await?;
            session(tls, true, store).await
        }
        TlsMode::None => session(tcp, true, store).await,
        TlsMode::Starttls => {
            let mut s = BufStream::new(tcp);
            s.write_all(b"220 fake ESMTP\r\n").await?;
            s.flush().await?;
            loop {
                let mut line = String::new();
                if s.read_line(&mut line).await? == 0 {
                    return Ok(());
                }
                let verb = line.trim_end().to_ascii_uppercase();
                if verb.starts_with("EHLO") {
                    s.write_all(b"250-fake\r\n250 STARTTLS\r\n").await?;
                } else if verb == "STARTTLS" {
                    s.write_all(b"220 go ahead\r\n").await?;
                    s.flush().await?;
                    let tls = acceptor.accept(s.into_inner()).await?;
                    // No new greeting after STARTTLS (RFC 3207 4.2).
                    return session(tls, false, store).await;
                } else if verb == "QUIT" {
                    s.write_all(b"221 bye\r\n").await?;
                    s.flush().await?;
                    return Ok(());
                } else {
                    s.write_all(b"530 5.7.0 Must issue a STARTTLS command first\r\n")
                        .await?;
                }
                s.flush().await?;
            }
        }
    }
}

async fn session<S: AsyncRead + AsyncWrite + Unpin>(
    stream: S,
    greet: bool,
    store: Arc<Mutex<Vec<Received>>>,
) -> std::io::Result<()> {
    let mut s = BufStream::new(stream);
    if greet {
        s.write_all(b"220 fake ESMTP\r\n").await?;
        s.flush().await?;
    }
    let mut from = String::new();
    let mut rcpts = Vec::new();
    loop {
        let mut line = String::new();
        if s.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let upper = line.trim_end().to_ascii_uppercase();
        let address = || {
            line.split_once('<')
                .and_then(|(_, rest)| rest.split_once('>'))
                .map(|(a, _)| a.to_string())
                .unwrap_or_default()
        };
        if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            s.write_all(b"250-fake\r\n250 8BITMIME\r\n").await?;
        } else if upper.starts_with("MAIL FROM") {
            from = address();
            rcpts.clear();
            s.write_all(b"250 ok\r\n").await?;
        } else if upper.starts_with("RCPT TO") {
            rcpts.push(address());
            s.write_all(b"250 ok\r\n").await?;
        } else if upper == "DATA" {
            s.write_all(b"354 go on\r\n").await?;
            s.flush().await?;
            let mut data = Vec::new();
            loop {
                let mut l = Vec::new();
                if s.read_until(b'\n', &mut l).await? == 0 {
                    return Ok(());
                }
                if l == b".\r\n" {
                    break;
                }
                let body = if l.starts_with(b"..") {
                    &l[1..]
                } else {
                    &l[..]
                };
                data.extend_from_slice(body);
            }
            if let Ok(mut v) = store.lock() {
                v.push(Received {
                    from: from.clone(),
                    rcpts: rcpts.clone(),
                    data,
                });
            }
            s.write_all(b"250 queued\r\n").await?;
        } else if upper == "RSET" || upper == "NOOP" {
            s.write_all(b"250 ok\r\n").await?;
        } else if upper == "QUIT" {
            s.write_all(b"221 bye\r\n").await?;
            s.flush().await?;
            return Ok(());
        } else {
            s.write_all(b"502 command not implemented\r\n").await?;
        }
        s.flush().await?;
    }
}
