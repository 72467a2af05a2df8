<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>CudaLibrariesView</name>
    <message numerus="yes">
        <source>The test loaded %n CUDA libraries; each came from the file beside it.</source>
        <translation>
            <numerusform>The test loaded %n CUDA library; it came from the file beside it.</numerusform>
            <numerusform>The test loaded %n CUDA libraries; each came from the file beside it.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The environment&apos;s start-up hook put %n NVIDIA wheel folders on the DLL search path.</source>
        <translation>
            <numerusform>The environment&apos;s start-up hook put %n NVIDIA wheel folder on the DLL search path.</numerusform>
            <numerusform>The environment&apos;s start-up hook put %n NVIDIA wheel folders on the DLL search path.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PlannedChangeView</name>
    <message numerus="yes">
        <source>%n to add</source>
        <translation>
            <numerusform>%n to add</numerusform>
            <numerusform>%n to add</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to move</source>
        <translation>
            <numerusform>%n to move</numerusform>
            <numerusform>%n to move</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to remove</source>
        <translation>
            <numerusform>%n to remove</numerusform>
            <numerusform>%n to remove</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TestNumbers</name>
    <message numerus="yes">
        <source> (%n threads)</source>
        <translation>
            <numerusform> (%n thread)</numerusform>
            <numerusform> (%n threads)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>VerifyPage</name>
    <message numerus="yes">
        <source>%n check(s) failed: something broke since the setup last worked.</source>
        <translation>
            <numerusform>%n check failed: something broke since the setup last worked.</numerusform>
            <numerusform>%n checks failed: something broke since the setup last worked.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Everything works; %n thing(s) changed since the last good state.</source>
        <translation>
            <numerusform>Everything works; %n thing changed since the last good state.</numerusform>
            <numerusform>Everything works; %n things changed since the last good state.</numerusform>
        </translation>
    </message>
</context>
</TS>
