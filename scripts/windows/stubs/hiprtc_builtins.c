/* Stand-in for hiprtc-builtinsMMmm.dll, which the real hiprtc loads itself
 * (the device library headers it compiles against): nothing of ours calls
 * it, so it only has to be a DLL under the SDK's name. */
__declspec(dllexport) int hiprtc_builtins_stub(void)
{
    return 0;
}
