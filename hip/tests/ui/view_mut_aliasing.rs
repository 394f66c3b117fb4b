// A writable view is exclusive: the buffer cannot be read while it lives.
use hip::{Device, DeviceBuffer, Stream};

fn main() -> hip::Result<()> {
    let dev = Device::get(0)?;
    let mut buf = DeviceBuffer::<f32>::zeroed(&dev, 16)?;
    let mut w = buf.slice_mut(0..8)?;
    let r = buf.slice(8..16)?;
    Stream::default_for(&dev).copy_htod(&[0.0; 8], &mut w)?;
    println!("{}", r.len());
    Ok(())
}
