// A writable view is exclusive: the buffer cannot be read while it lives.
use hip::{Device, DeviceBuffer};

fn main() -> hip::Result<()> {
    let dev = Device::get(0)?;
    let mut buf = DeviceBuffer::<f32>::zeroed(&dev, 16)?;
    let mut w = buf.slice_mut(0..8)?;
    let r = buf.slice(8..16)?;
    w.copy_from_slice(&[0.0; 8])?;
    println!("{}", r.len());
    Ok(())
}
