//! Starting a job: which rank this process is, and the communicator's
//! unique id handed from rank 0 to every other rank over TCP.
//!
//! [`Job::from_env`] reads what the launcher set:
//!
//! | launcher | rank | world size | local rank | job id |
//! | --- | --- | --- | --- | --- |
//! | `torchrun` | `RANK` | `WORLD_SIZE` | `LOCAL_RANK` | `TORCHELASTIC_RUN_ID` |
//! | Slurm (`srun`) | `SLURM_PROCID` | `SLURM_NTASKS` | `SLURM_LOCALID` | `SLURM_JOB_ID`.`SLURM_STEP_ID` |
//! | Open MPI (`mpirun`) | `OMPI_COMM_WORLD_RANK` | `OMPI_COMM_WORLD_SIZE` | `OMPI_COMM_WORLD_LOCAL_RANK` | — |
//! | MPICH / Intel MPI | `PMI_RANK` | `PMI_SIZE` | `MPI_LOCALRANKID` | — |
//!
//! Rank 0's host is `MASTER_ADDR` and its port `MASTER_PORT` (torchrun sets
//! them; with Slurm or MPI the job script does, e.g.
//! `MASTER_ADDR=$(scontrol show hostnames | head -n1)`), with one exception:
//! under torchrun (`TORCHELASTIC_RUN_ID` set) the launcher's own store
//! already listens on `MASTER_PORT`, so rank 0 listens on `MASTER_PORT + 1`.
//! [`PORT_VAR`] overrides the port in every case.
//! [`JOB_ID_VAR`] overrides the job id; without one from the launcher or the
//! variable, the job id is the launcher's name and the rendezvous address.
//!
//! # What the rendezvous trusts
//! Nothing a peer sends. Rank 0 listens only on the address it is told,
//! every read has a deadline, a message's length is checked against a small
//! bound before anything is allocated, and a peer is served only when its
//! protocol tag, job id, world size and rank all match and its rank has not
//! joined yet; anything else is answered with the reason and dropped (the
//! job goes on waiting for the real rank until the timeout). The job id is
//! not a secret: it keeps two jobs that share a port from mixing, it does
//! not authenticate peers (run jobs on a network you trust, as NCCL itself
//! requires).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Bytes in a communicator id (`NCCL_UNIQUE_ID_BYTES`, the same in RCCL).
pub const UNIQUE_ID_BYTES: usize = 128;

/// Overrides the job id the launcher gives (or replaces the default).
pub const JOB_ID_VAR: &str = "HIP_RENDEZVOUS_JOB_ID";

/// Overrides the port rank 0 listens on for the rendezvous.
pub const PORT_VAR: &str = "HIP_RENDEZVOUS_PORT";

/// The first bytes of every message: protocol and its version.
const TAG: &[u8; 8] = b"HIPRDV01";
/// The longest job id accepted (bytes).
pub const MAX_JOB_ID: usize = 256;
/// The longest rejection reason sent or accepted (bytes).
const MAX_REASON: usize = 512;
/// The longest a single read or write may wait, within the overall timeout:
/// a peer that connects and says nothing cannot hold rank 0 for long.
const STEP: Duration = Duration::from_secs(5);
/// The pause between a rank's connection attempts while rank 0 starts.
const RETRY: Duration = Duration::from_millis(100);

/// A communicator's unique id (`ncclUniqueId`): made by rank 0, given to
/// every rank.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId {
    bytes: [u8; UNIQUE_ID_BYTES],
}

impl UniqueId {
    /// The id of these bytes (as `ncclGetUniqueId` wrote them).
    pub const fn from_bytes(bytes: [u8; UNIQUE_ID_BYTES]) -> UniqueId {
        UniqueId { bytes }
    }

    /// The id's bytes, to pass to `ncclCommInitRank`.
    pub const fn as_bytes(&self) -> &[u8; UNIQUE_ID_BYTES] {
        &self.bytes
    }
}

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueId(")?;
        for b in &self.bytes[..8] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "..)")
    }
}

/// Which launcher started the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launcher {
    /// PyTorch's `torchrun` (`RANK`, `WORLD_SIZE`, ...).
    Torchrun,
    /// Slurm's `srun` (`SLURM_PROCID`, ...).
    Slurm,
    /// Open MPI's `mpirun` (`OMPI_COMM_WORLD_RANK`, ...).
    OpenMpi,
    /// MPICH or Intel MPI (`PMI_RANK`, ...).
    Mpich,
}

impl Launcher {
    fn name(self) -> &'static str {
        match self {
            Launcher::Torchrun => "torchrun",
            Launcher::Slurm => "slurm",
            Launcher::OpenMpi => "openmpi",
            Launcher::Mpich => "mpich",
        }
    }
}

/// One process's place in a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// This process's rank, `0..world_size`.
    pub rank: usize,
    /// How many processes the job has.
    pub world_size: usize,
    /// This process's index among those on its machine (which GPU it
    /// usually takes).
    pub local_rank: usize,
    /// Rank 0's host (`MASTER_ADDR`).
    pub master_addr: String,
    /// The port rank 0 listens on for the rendezvous: [`PORT_VAR`] when
    /// set, else `MASTER_PORT`, plus one under torchrun (whose own store
    /// holds `MASTER_PORT`).
    pub rendezvous_port: u16,
    /// What keeps two jobs on one port apart.
    pub job_id: String,
    /// Who set the variables.
    pub launcher: Launcher,
}

/// Why a job could not be read or its rendezvous did not complete.
#[derive(Debug, thiserror::Error)]
pub enum RendezvousError {
    /// No launcher's variables were found.
    #[error("no launcher variables: set RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT (torchrun does), or run under srun or mpirun with MASTER_ADDR and MASTER_PORT set")]
    NoLauncher,
    /// A variable the launcher should have set is missing.
    #[error("{launcher} job: {name} is not set")]
    Missing {
        /// The launcher whose variables were found.
        launcher: &'static str,
        /// The missing variable.
        name: &'static str,
    },
    /// A variable's value is not usable.
    #[error("{name}={value:?}: {why}")]
    Invalid {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it must be.
        why: String,
    },
    /// A socket operation failed.
    #[error("rendezvous: {what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The system's error.
        source: io::Error,
    },
    /// The deadline passed.
    #[error("rendezvous timed out after {waited:?}: {detail}")]
    Timeout {
        /// How long it waited.
        waited: Duration,
        /// Who was missing, or what was awaited.
        detail: String,
    },
    /// Rank 0 refused this rank.
    #[error("rendezvous: rank 0 refused this rank: {0}")]
    Refused(String),
    /// Rank 0 answered with something that is not this protocol.
    #[error("rendezvous: malformed answer from rank 0: {0}")]
    Malformed(String),
}

type Result<T> = std::result::Result<T, RendezvousError>;

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> RendezvousError {
    let what = what.into();
    move |source| RendezvousError::Io { what, source }
}

impl Job {
    /// The job as the launcher described it in this process's environment.
    pub fn from_env() -> Result<Job> {
        Job::from_vars(|k| std::env::var(k).ok())
    }

    /// The job from variables given by `var` (the environment, or a test's).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Job> {
        let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        let (launcher, [rank, size, local]) =
            if var("RANK").is_some() || var("WORLD_SIZE").is_some() {
                (Launcher::Torchrun, ["RANK", "WORLD_SIZE", "LOCAL_RANK"])
            } else if var("SLURM_PROCID").is_some() {
                (
                    Launcher::Slurm,
                    ["SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"],
                )
            } else if var("OMPI_COMM_WORLD_RANK").is_some() {
                (
                    Launcher::OpenMpi,
                    [
                        "OMPI_COMM_WORLD_RANK",
                        "OMPI_COMM_WORLD_SIZE",
                        "OMPI_COMM_WORLD_LOCAL_RANK",
                    ],
                )
            } else if var("PMI_RANK").is_some() {
                (Launcher::Mpich, ["PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"])
            } else {
                return Err(RendezvousError::NoLauncher);
            };
        let required = |name: &'static str| {
            var(name).ok_or(RendezvousError::Missing {
                launcher: launcher.name(),
                name,
            })
        };
        let number = |name: &'static str| -> Result<usize> {
            let value = required(name)?;
            value
                .trim()
                .parse::<usize>()
                .map_err(|_| RendezvousError::Invalid {
                    name,
                    value,
                    why: "not a non-negative integer".into(),
                })
        };
        let world_size = number(size)?;
        if world_size == 0 {
            return Err(RendezvousError::Invalid {
                name: size,
                value: "0".into(),
                why: "a job has at least one process".into(),
            });
        }
        let rank = number(rank)?;
        if rank >= world_size {
            return Err(RendezvousError::Invalid {
                name: rank_name(launcher),
                value: rank.to_string(),
                why: format!("must be below the world size {world_size}"),
            });
        }
        // MPICH's local rank variable is optional; the others are set by
        // their launchers.
        let local_rank = match (launcher, var(local)) {
            (Launcher::Mpich, None) => 0,
            _ => number(local)?,
        };
        let master_addr = required("MASTER_ADDR")?.trim().to_owned();
        let port = |name: &'static str, text: String| match text.trim().parse::<u16>() {
            Ok(p) if p != 0 => Ok(p),
            _ => Err(RendezvousError::Invalid {
                name,
                value: text,
                why: "a TCP port, 1 to 65535".into(),
            }),
        };
        let master_port = port("MASTER_PORT", required("MASTER_PORT")?)?;
        let rendezvous_port = match var(PORT_VAR) {
            Some(text) => port(PORT_VAR, text)?,
            // torchrun's agent hosts its store on MASTER_PORT.
            None if launcher == Launcher::Torchrun && var("TORCHELASTIC_RUN_ID").is_some() => {
                master_port.checked_add(1).ok_or(RendezvousError::Invalid {
                    name: "MASTER_PORT",
                    value: master_port.to_string(),
                    why: format!(
                        "under torchrun the rendezvous listens on MASTER_PORT + 1; set {PORT_VAR}"
                    ),
                })?
            }
            None => master_port,
        };
        let from_launcher = match launcher {
            Launcher::Torchrun => var("TORCHELASTIC_RUN_ID"),
            Launcher::Slurm => var("SLURM_JOB_ID").map(|j| match var("SLURM_STEP_ID") {
                Some(step) => format!("{j}.{step}"),
                None => j,
            }),
            Launcher::OpenMpi | Launcher::Mpich => None,
        };
        let job_id = var(JOB_ID_VAR)
            .or(from_launcher)
            .unwrap_or_else(|| format!("{}@{master_addr}:{rendezvous_port}", launcher.name()));
        if job_id.len() > MAX_JOB_ID {
            return Err(RendezvousError::Invalid {
                name: JOB_ID_VAR,
                value: job_id,
                why: format!("a job id has at most {MAX_JOB_ID} bytes"),
            });
        }
        Ok(Job {
            rank,
            world_size,
            local_rank,
            master_addr,
            rendezvous_port,
            job_id,
            launcher,
        })
    }

    /// Rank 0's address, resolved.
    fn master(&self) -> Result<Vec<SocketAddr>> {
        let addrs: Vec<SocketAddr> = (self.master_addr.as_str(), self.rendezvous_port)
            .to_socket_addrs()
            .map_err(io_error(format!(
                "resolving MASTER_ADDR={}",
                self.master_addr
            )))?
            .collect();
        if addrs.is_empty() {
            return Err(RendezvousError::Invalid {
                name: "MASTER_ADDR",
                value: self.master_addr.clone(),
                why: "resolves to no address".into(),
            });
        }
        Ok(addrs)
    }

    /// Gives every rank the communicator's id: rank 0 passes `Some(id)`,
    /// listens on `MASTER_ADDR` at [`Job::rendezvous_port`] and returns once every other
    /// rank has the id; the others pass `None` and get the id from rank 0,
    /// retrying while rank 0 starts. Either fails after `timeout`, naming
    /// the ranks still missing.
    pub fn exchange(&self, id: Option<UniqueId>, timeout: Duration) -> Result<UniqueId> {
        let deadline = Instant::now() + timeout;
        match (self.rank, id) {
            (0, Some(id)) => {
                if self.world_size > 1 {
                    let addrs = self.master()?;
                    let listener = TcpListener::bind(&addrs[..]).map_err(io_error(format!(
                        "listening on {}:{} (MASTER_ADDR must name this machine on rank 0, and the port must be free)",
                        self.master_addr, self.rendezvous_port
                    )))?;
                    serve(&listener, self, &id, deadline)?;
                }
                Ok(id)
            }
            (0, None) => Err(RendezvousError::Invalid {
                name: "rank",
                value: "0".into(),
                why: "rank 0 makes the id: pass Some(id)".into(),
            }),
            (_, Some(_)) => Err(RendezvousError::Invalid {
                name: "rank",
                value: self.rank.to_string(),
                why: "only rank 0 passes an id".into(),
            }),
            (_, None) => join(&self.master()?, self, deadline),
        }
    }
}

fn rank_name(launcher: Launcher) -> &'static str {
    match launcher {
        Launcher::Torchrun => "RANK",
        Launcher::Slurm => "SLURM_PROCID",
        Launcher::OpenMpi => "OMPI_COMM_WORLD_RANK",
        Launcher::Mpich => "PMI_RANK",
    }
}

/// A rank's greeting: tag, then a length-prefixed body of rank, world size
/// and job id.
fn hello(job: &Job) -> Vec<u8> {
    frame(&hello_body(
        job.rank as u32,
        job.world_size as u32,
        &job.job_id,
    ))
}

/// A greeting's body: rank, world size (big-endian) and the job id.
fn hello_body(rank: u32, world_size: u32, job_id: &str) -> Vec<u8> {
    let mut body = Vec::with_capacity(8 + job_id.len());
    body.extend_from_slice(&rank.to_be_bytes());
    body.extend_from_slice(&world_size.to_be_bytes());
    body.extend_from_slice(job_id.as_bytes());
    body
}

/// `body` framed: tag, big-endian length, body.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut msg = Vec::with_capacity(12 + body.len());
    msg.extend_from_slice(TAG);
    msg.extend_from_slice(&(body.len() as u32).to_be_bytes());
    msg.extend_from_slice(body);
    msg
}

/// What rank 0 read from a connection.
#[derive(Debug, PartialEq, Eq)]
struct Hello {
    rank: usize,
    world_size: usize,
    job_id: String,
}

/// Reads exactly `buf.len()` bytes, each read bounded by the deadline.
fn read_exact_by(stream: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "deadline passed"));
        }
        stream.set_read_timeout(Some(left))?;
        match stream.read(&mut buf[done..]) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("connection closed after {done} of {} bytes", buf.len()),
                ))
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads a tag and a length-prefixed body of at most `max` bytes: the
/// length is checked before the body is allocated.
fn read_frame(stream: &mut TcpStream, max: usize, deadline: Instant) -> io::Result<Vec<u8>> {
    let mut head = [0u8; 12];
    read_exact_by(stream, &mut head, deadline)?;
    let mut body = vec![0u8; frame_len(&head, max)?];
    read_exact_by(stream, &mut body, deadline)?;
    Ok(body)
}

/// The body length a frame's head announces, once its tag is checked and
/// the length found at most `max`.
fn frame_len(head: &[u8; 12], max: usize) -> io::Result<usize> {
    if &head[..8] != TAG {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a rendezvous message (wrong protocol tag)",
        ));
    }
    let len = u32::from_be_bytes([head[8], head[9], head[10], head[11]]) as usize;
    if len > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a {len}-byte message; at most {max} accepted"),
        ));
    }
    Ok(len)
}

fn parse_hello(body: &[u8]) -> std::result::Result<Hello, String> {
    if body.len() < 8 {
        return Err(format!("a {}-byte greeting is too short", body.len()));
    }
    let rank = u32::from_be_bytes([body[0], body[1], body[2], body[3]]) as usize;
    let world_size = u32::from_be_bytes([body[4], body[5], body[6], body[7]]) as usize;
    let job_id = std::str::from_utf8(&body[8..])
        .map_err(|_| "the job id is not UTF-8".to_owned())?
        .to_owned();
    Ok(Hello {
        rank,
        world_size,
        job_id,
    })
}

/// Rank 0's answer: tag, length, then status 0 and the id, or status 1 and
/// the reason.
fn answer(ok: std::result::Result<&UniqueId, &str>) -> Vec<u8> {
    let mut body = Vec::new();
    match ok {
        Ok(id) => {
            body.push(0);
            body.extend_from_slice(id.as_bytes());
        }
        Err(reason) => {
            body.push(1);
            let mut end = reason.len().min(MAX_REASON);
            while !reason.is_char_boundary(end) {
                end -= 1;
            }
            body.extend_from_slice(&reason.as_bytes()[..end]);
        }
    }
    frame(&body)
}

/// The joining side's reading of rank 0's answer body: the id, or why
/// there is none.
fn parse_answer(body: &[u8]) -> Result<UniqueId> {
    match body.split_first() {
        Some((0, rest)) if rest.len() == UNIQUE_ID_BYTES => {
            let mut bytes = [0u8; UNIQUE_ID_BYTES];
            bytes.copy_from_slice(rest);
            Ok(UniqueId::from_bytes(bytes))
        }
        Some((0, rest)) => Err(RendezvousError::Malformed(format!(
            "an id of {} bytes, not {UNIQUE_ID_BYTES}",
            rest.len()
        ))),
        Some((1, reason)) => Err(RendezvousError::Refused(
            String::from_utf8_lossy(reason).into_owned(),
        )),
        Some((status, _)) => Err(RendezvousError::Malformed(format!("status {status}"))),
        None => Err(RendezvousError::Malformed("an empty answer".into())),
    }
}

/// Rank 0: accepts connections until every other rank has the id, or the
/// deadline passes.
fn serve(listener: &TcpListener, job: &Job, id: &UniqueId, deadline: Instant) -> Result<()> {
    let started = Instant::now();
    listener
        .set_nonblocking(true)
        .map_err(io_error("setting up the listener"))?;
    let mut joined = vec![false; job.world_size];
    joined[0] = true;
    let mut refused: Vec<String> = Vec::new();
    while joined.iter().any(|j| !j) {
        if Instant::now() >= deadline {
            let missing: Vec<String> = joined
                .iter()
                .enumerate()
                .filter(|(_, j)| !**j)
                .map(|(r, _)| r.to_string())
                .collect();
            let mut detail = format!("ranks {} never joined", missing.join(", "));
            if !refused.is_empty() {
                detail.push_str(&format!("; refused: {}", refused.join("; ")));
            }
            return Err(RendezvousError::Timeout {
                waited: started.elapsed(),
                detail,
            });
        }
        let (mut stream, peer) = match listener.accept() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_error("accepting a rank")(e)),
        };
        // One peer's silence is bounded by STEP, not the whole timeout.
        let step = (Instant::now() + STEP).min(deadline);
        let verdict = stream
            .set_nonblocking(false)
            .map_err(|e| e.to_string())
            .and_then(|()| read_frame(&mut stream, 8 + MAX_JOB_ID, step).map_err(|e| e.to_string()))
            .and_then(|body| parse_hello(&body))
            .and_then(|h| check(&h, job, &joined).map(|()| h.rank));
        let reply = match &verdict {
            Ok(_) => answer(Ok(id)),
            Err(reason) => answer(Err(reason)),
        };
        let _ = stream.set_write_timeout(Some(STEP));
        let sent = stream.write_all(&reply).and_then(|()| stream.flush());
        match verdict {
            Ok(rank) if sent.is_ok() => joined[rank] = true,
            Ok(rank) => refused.push(format!("rank {rank} at {peer}: the id could not be sent")),
            Err(reason) => refused.push(format!("{peer}: {reason}")),
        }
    }
    Ok(())
}

/// Whether a greeting belongs to this job and names a rank not yet joined.
fn check(h: &Hello, job: &Job, joined: &[bool]) -> std::result::Result<(), String> {
    if h.job_id != job.job_id {
        return Err(format!(
            "job id {:?} is not this job's {:?}",
            h.job_id, job.job_id
        ));
    }
    if h.world_size != job.world_size {
        return Err(format!(
            "world size {} is not this job's {}",
            h.world_size, job.world_size
        ));
    }
    if h.rank == 0 || h.rank >= job.world_size {
        return Err(format!(
            "rank {} is not a rank 1..{} may have",
            h.rank, job.world_size
        ));
    }
    if joined[h.rank] {
        return Err(format!("rank {} has already joined", h.rank));
    }
    Ok(())
}

/// A rank other than 0: connects (retrying while rank 0 starts), greets and
/// reads the id.
fn join(addrs: &[SocketAddr], job: &Job, deadline: Instant) -> Result<UniqueId> {
    let started = Instant::now();
    let mut last_error = None;
    let mut stream = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(RendezvousError::Timeout {
                waited: started.elapsed(),
                detail: format!(
                    "rank 0 at {}:{} never answered ({})",
                    job.master_addr,
                    job.rendezvous_port,
                    last_error.map_or("no attempt".to_owned(), |e: io::Error| e.to_string())
                ),
            });
        }
        let mut connected = None;
        for a in addrs {
            match TcpStream::connect_timeout(a, left.min(STEP)) {
                Ok(s) => {
                    connected = Some(s);
                    break;
                }
                Err(e) => last_error = Some(e),
            }
        }
        match connected {
            Some(s) => break s,
            None => std::thread::sleep(RETRY.min(left)),
        }
    };
    stream
        .set_write_timeout(Some(STEP))
        .and_then(|()| stream.write_all(&hello(job)))
        .map_err(io_error("greeting rank 0"))?;
    let body = read_frame(&mut stream, 1 + UNIQUE_ID_BYTES.max(MAX_REASON), deadline).map_err(
        |e| match e.kind() {
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => RendezvousError::Timeout {
                waited: started.elapsed(),
                detail: "rank 0 accepted the connection but sent no id".into(),
            },
            io::ErrorKind::InvalidData => RendezvousError::Malformed(e.to_string()),
            _ => io_error("reading the id from rank 0")(e),
        },
    )?;
    parse_answer(&body)
}

/// Hooks for the `fuzz/` targets (built only under cargo-fuzz's
/// `--cfg fuzzing`): the wire format's pure encoders and parsers, without
/// sockets, reachable without widening the public API.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    use super::*;

    /// The protocol tag every frame starts with.
    pub const FRAME_TAG: &[u8; 8] = TAG;
    /// The longest rejection reason sent or accepted.
    pub const REASON_MAX: usize = MAX_REASON;
    /// The longest answer body the joining side reads.
    pub const ANSWER_MAX: usize = 1 + if UNIQUE_ID_BYTES > MAX_REASON {
        UNIQUE_ID_BYTES
    } else {
        MAX_REASON
    };

    /// [`frame_len`](super::frame_len): the body length a head announces.
    pub fn frame_len(head: &[u8; 12], max: usize) -> io::Result<usize> {
        super::frame_len(head, max)
    }

    /// A greeting, framed.
    pub fn hello(rank: u32, world_size: u32, job_id: &str) -> Vec<u8> {
        frame(&hello_body(rank, world_size, job_id))
    }

    /// Rank 0's reading of a greeting body: rank, world size, job id.
    pub fn parse_hello(body: &[u8]) -> std::result::Result<(usize, usize, String), String> {
        super::parse_hello(body).map(|h| (h.rank, h.world_size, h.job_id))
    }

    /// Rank 0's answer, framed.
    pub fn answer(ok: std::result::Result<&UniqueId, &str>) -> Vec<u8> {
        super::answer(ok)
    }

    /// The joining side's reading of an answer body.
    pub fn parse_answer(body: &[u8]) -> Result<UniqueId> {
        super::parse_answer(body)
    }
}

#[cfg(test)]
mod tests;
