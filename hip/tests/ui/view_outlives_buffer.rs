// A view borrows its buffer: it cannot be used after the buffer is dropped.
use hip::{Device, DeviceBuffer};

fn main() -> hip::Result<()> {
    let dev = Device::get(0)?;
    let view;
    {
        let buf = DeviceBuffer::<f32>::zeroed(&dev, 16)?;
        view = buf.slice(0..8)?;
    }
    println!("{}", view.len());
    Ok(())
}
