// Raw pointers are not accepted for pointer parameters: memory must come
// from a live buffer.
use hip::{Device, LaunchConfig, Module, Stream, TypedKernel};

fn main() -> hip::Result<()> {
    let dev = Device::get(0)?;
    let m = Module::load_file(&dev, "k.co")?;
    let k = unsafe { TypedKernel::<(*mut f32,)>::new(m.function("k")?) };
    let s = Stream::new(&dev)?;
    let p: *mut f32 = std::ptr::null_mut();
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(4), (p,))? };
    Ok(())
}
