<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ChoiceInputs</name>
    <message>
        <source>Framework</source>
        <extracomment>The version list&apos;s data for &quot;Recommended&quot; (a release&apos;s data is its version).</extracomment>
        <translation>框架</translation>
    </message>
    <message>
        <source>&amp;PyTorch</source>
        <translation>&amp;PyTorch</translation>
    </message>
    <message>
        <source>&amp;TensorFlow</source>
        <translation>&amp;TensorFlow</translation>
    </message>
    <message>
        <source>Framework: PyTorch</source>
        <translation>框架：PyTorch</translation>
    </message>
    <message>
        <source>Framework: TensorFlow</source>
        <translation>框架：TensorFlow</translation>
    </message>
    <message>
        <source>Framework version</source>
        <translation>框架版本</translation>
    </message>
    <message>
        <source>“Recommended” lets the wizard pick the newest release that works on this machine. Pick a release when a project needs that one.</source>
        <translation>“推荐”会让向导选择能在本机运行的最新版本。项目需要特定版本时，请选择该版本。</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>&amp;Version:</source>
        <translation>版本(&amp;V)：</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>&amp;Automatic (best for the plan)</source>
        <translation>自动(&amp;A)（最适合此方案）</translation>
    </message>
    <message>
        <source>The wizard picks venv or conda: conda where it brings CUDA and cuDNN into the environment that would otherwise have to be installed on the system.</source>
        <translation>由向导选择 venv 或 conda：如果 conda 能把原本需要装在系统上的 CUDA 和 cuDNN 装进环境，就选择 conda。</translation>
    </message>
    <message>
        <source>v&amp;env</source>
        <translation>v&amp;env</translation>
    </message>
    <message>
        <source>venv: a Python virtual environment, a folder with its own Python packages (made with uv or pip). Needs nothing else installed.</source>
        <translation>venv：Python 虚拟环境，即一个带有独立 Python 包的文件夹（用 uv 或 pip 创建）。无需另外安装任何软件。</translation>
    </message>
    <message>
        <source>c&amp;onda</source>
        <translation>c&amp;onda</translation>
    </message>
    <message>
        <source>Environment manager: automatic</source>
        <translation>环境管理器：自动</translation>
    </message>
    <message>
        <source>Environment manager: venv</source>
        <translation>环境管理器：venv</translation>
    </message>
    <message>
        <source>Environment manager: conda</source>
        <translation>环境管理器：conda</translation>
    </message>
    <message>
        <source>Environment name</source>
        <translation>环境名称</translation>
    </message>
    <message>
        <source>The environment&apos;s folder name; also its name in conda and Jupyter.</source>
        <translation>环境的文件夹名称，也是它在 conda 和 Jupyter 中的名称。</translation>
    </message>
    <message>
        <source>Na&amp;me:</source>
        <translation>名称(&amp;M)：</translation>
    </message>
    <message>
        <source>Register a &amp;Jupyter kernel</source>
        <translation>注册 Jupyter 内核(&amp;J)</translation>
    </message>
    <message>
        <source>Register a Jupyter kernel</source>
        <translation>注册 Jupyter 内核</translation>
    </message>
    <message>
        <source>Installs ipykernel in the environment so that Jupyter and VS Code notebooks can use it.</source>
        <translation>在环境中安装 ipykernel，以便 Jupyter 和 VS Code 笔记本使用该环境。</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>&amp;GPUs the environment uses:</source>
        <translation>环境使用的 GPU(&amp;G)：</translation>
    </message>
    <message>
        <source>GPUs the environment uses (Space ticks or clears one)</source>
        <translation>环境使用的 GPU（按空格键勾选或取消勾选）</translation>
    </message>
    <message>
        <source>Untick a GPU to keep it free for other work: the environment then sets CUDA_VISIBLE_DEVICES to the ticked ones.</source>
        <translation>取消勾选某个 GPU，可将其留给其他工作：环境会将 CUDA_VISIBLE_DEVICES 设为已勾选的 GPU。</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>软件包</translation>
    </message>
    <message>
        <source>From a &amp;folder of wheels (offline)</source>
        <translation>从 wheel 文件夹安装(&amp;F)（离线）</translation>
    </message>
    <message>
        <source>Install packages from a folder of wheels, offline</source>
        <translation>从 wheel 文件夹离线安装软件包</translation>
    </message>
    <message>
        <source>For machines without internet: install only from a folder of .whl files (made with “pip download” on another machine). Nothing is fetched.</source>
        <translation>适用于无法联网的计算机：仅从包含 .whl 文件的文件夹安装（在另一台计算机上用“pip download”生成）。不会下载任何内容。</translation>
    </message>
    <message>
        <source>Folder of wheels</source>
        <translation>wheel 文件夹</translation>
    </message>
    <message>
        <source>Folder of .whl files</source>
        <translation>.whl 文件所在的文件夹</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <source>Choose the folder of wheels</source>
        <translation>选择 wheel 文件夹</translation>
    </message>
</context>
<context>
    <name>ChoosePage</name>
    <message>
        <source>Choose</source>
        <translation>选择</translation>
    </message>
    <message>
        <source>Pick a framework; the wizard works out a matching set and shows what it would change.</source>
        <translation>选择一个框架；向导会算出一套相互匹配的组合，并显示将做哪些更改。</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: the plan is for that machine, and nothing will be installed here.</source>
        <translation>这是已保存报告的预览：方案针对的是那台计算机，本机不会安装任何内容。</translation>
    </message>
    <message>
        <source>The recommendation</source>
        <translation>推荐方案</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>conda: an environment manager (here through %1) that can also bring CUDA and cuDNN into the environment, from conda-forge.</source>
        <translation>conda：一种环境管理器（此处通过 %1 使用），还能从 conda-forge 将 CUDA 和 cuDNN 装入环境。</translation>
    </message>
    <message>
        <source>GPU %1: %2</source>
        <translation>GPU %1：%2</translation>
    </message>
    <message>
        <source>not responding</source>
        <translation>无响应</translation>
    </message>
    <message>
        <source>no driver</source>
        <translation>无驱动程序</translation>
    </message>
    <message>
        <source>not usable: %1</source>
        <translation>不可用：%1</translation>
    </message>
    <message>
        <source>compute capability %1</source>
        <translation>计算能力 %1</translation>
    </message>
    <message>
        <source>Compute capability is the GPU generation&apos;s feature level (8.6 for the GeForce RTX 30 series); a framework build runs only on the levels it was made for.</source>
        <translation>计算能力是 GPU 架构代际的功能级别（GeForce RTX 30 系列为 8.6）；框架构建版本只能在其编译时支持的级别上运行。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found, so there is nothing to pick: the plan is a CPU build.</source>
        <translation>未找到 NVIDIA GPU，因此无需选择：方案为 CPU 版本。</translation>
    </message>
    <message>
        <source>conda: an environment manager that can also bring CUDA and cuDNN into the environment, from conda-forge. No conda is installed here, and none is needed: the wizard makes the environment with py-rattler, built into the wizard.</source>
        <translation>conda：一种环境管理器，还能从 conda-forge 把 CUDA 和 cuDNN 装进环境。这台机器没有安装 conda，也不需要：向导用内置的 py-rattler 创建环境。</translation>
    </message>
    <message>
        <source>Tick at least one GPU.</source>
        <translation>请至少勾选一个 GPU。</translation>
    </message>
    <message>
        <source>This name cannot be used: %1</source>
        <translation>此名称不可用：%1</translation>
    </message>
    <message>
        <source>An environment of this name exists: it will be replaced (and put back if this fails).</source>
        <translation>已存在同名环境：它将被替换（如果失败则会恢复）。</translation>
    </message>
    <message>
        <source>There is no such folder.</source>
        <translation>该文件夹不存在。</translation>
    </message>
    <message>
        <source>The folder of wheels</source>
        <translation>wheel 文件夹</translation>
    </message>
    <message>
        <source>Waiting for the detection of this machine…</source>
        <translation>正在等待本机检测完成…</translation>
    </message>
    <message>
        <source>Working out the plan…</source>
        <translation>正在制定方案…</translation>
    </message>
    <message>
        <source>The list of releases could not be read (%1); “Recommended” still works.</source>
        <translation>无法读取版本列表（%1）；“推荐”仍可使用。</translation>
    </message>
</context>
<context>
    <name>CommandLine</name>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the command</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>Put this command on the clipboard, to paste into a terminal.</source>
        <translation>将此命令放到剪贴板，以便粘贴到终端中。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>CudaLibrariesView</name>
    <message>
        <source>CUDA libraries</source>
        <extracomment>The list shows this many rows before it scrolls.</extracomment>
        <translation>CUDA 库</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>库</translation>
    </message>
    <message>
        <source>Loaded from</source>
        <translation>加载自</translation>
    </message>
    <message>
        <source>CUDA libraries and the files they were loaded from</source>
        <translation>CUDA 库及其加载来源文件</translation>
    </message>
    <message numerus="yes">
        <source>The test loaded %n CUDA libraries; each came from the file beside it.</source>
        <translation>
            <numerusform>测试加载了 %n 个 CUDA 库；每个库都来自其旁边列出的文件。</numerusform>
        </translation>
    </message>
    <message>
        <source>The test loaded no CUDA library: the framework did not use one.</source>
        <translation>测试未加载任何 CUDA 库：框架未使用 CUDA 库。</translation>
    </message>
    <message numerus="yes">
        <source>The environment&apos;s start-up hook put %n NVIDIA wheel folders on the DLL search path.</source>
        <translation>
            <numerusform>环境的启动钩子已将 %n 个 NVIDIA wheel 文件夹加入 DLL 搜索路径。</numerusform>
        </translation>
    </message>
    <message>
        <source>The environment&apos;s start-up hook added no folder: %1</source>
        <translation>环境的启动钩子未添加任何文件夹：%1</translation>
    </message>
    <message>
        <source>The environment&apos;s start-up hook found no NVIDIA wheel folder to add.</source>
        <translation>环境的启动钩子未找到可添加的 NVIDIA wheel 文件夹。</translation>
    </message>
</context>
<context>
    <name>DetectPage</name>
    <message>
        <source>Your machine</source>
        <translation>您的计算机</translation>
    </message>
    <message>
        <source>What the wizard found, and what it means for GPU training.</source>
        <translation>向导检测到的信息，及其对 GPU 训练的意义。</translation>
    </message>
    <message>
        <source>Looking at this machine…</source>
        <translation>正在检查本机…</translation>
    </message>
    <message>
        <source>Detection in progress</source>
        <translation>正在检测</translation>
    </message>
    <message>
        <source>&amp;Retry</source>
        <translation>重试(&amp;R)</translation>
    </message>
    <message>
        <source>System report</source>
        <translation>系统报告</translation>
    </message>
    <message>
        <source>Detection failed: %1</source>
        <translation>检测失败：%1</translation>
    </message>
</context>
<context>
    <name>InstallPage</name>
    <message>
        <source>Install</source>
        <translation>安装</translation>
    </message>
    <message>
        <source>The wizard creates the environment and installs the framework build.</source>
        <translation>向导将创建环境并安装框架构建版本。</translation>
    </message>
    <message>
        <source>&amp;Next &gt;</source>
        <translation>下一步(&amp;N) &gt;</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: nothing is installed on this machine. On the machine itself, this page creates the environment and shows its progress and log.</source>
        <extracomment>The question the Cancel installation button opens, while it is open.</extracomment>
        <translation>这是已保存报告的预览：本机不会安装任何内容。在原计算机上，此页面会创建环境并显示进度和日志。</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Waiting to start…</source>
        <translation>等待开始…</translation>
    </message>
    <message>
        <source>Installation progress</source>
        <translation>安装进度</translation>
    </message>
    <message>
        <source>Current package</source>
        <translation>当前软件包</translation>
    </message>
    <message>
        <source>&amp;Cancel installation</source>
        <translation>取消安装(&amp;C)</translation>
    </message>
    <message>
        <source>Cancel the installation and remove what was made</source>
        <translation>取消安装并删除已创建的内容</translation>
    </message>
    <message>
        <source>Stop now: the running tool is ended and the half-made environment is removed.</source>
        <translation>立即停止：结束正在运行的工具，并删除未完成的环境。</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Installation log</source>
        <translation>安装日志</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Installation result</source>
        <translation>安装结果</translation>
    </message>
    <message>
        <source>Environment folder</source>
        <translation>环境文件夹</translation>
    </message>
    <message>
        <source>Interpreter</source>
        <translation>解释器</translation>
    </message>
    <message>
        <source>Select this interpreter in VS Code (Python: Select Interpreter) or PyCharm.</source>
        <translation>在 VS Code（Python: Select Interpreter）或 PyCharm 中选择此解释器。</translation>
    </message>
    <message>
        <source>Framework build</source>
        <translation>框架构建版本</translation>
    </message>
    <message>
        <source>Full log</source>
        <translation>完整日志</translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <source>Interpreter:</source>
        <translation>解释器：</translation>
    </message>
    <message>
        <source>Framework:</source>
        <translation>框架：</translation>
    </message>
    <message>
        <source>Full log:</source>
        <translation>完整日志：</translation>
    </message>
    <message>
        <source>&amp;Retry</source>
        <translation>重试(&amp;R)</translation>
    </message>
    <message>
        <source>Try the installation again</source>
        <translation>重新尝试安装</translation>
    </message>
    <message>
        <source>Nothing runs in a preview.</source>
        <translation>预览中不会运行任何操作。</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>未开始</translation>
    </message>
    <message>
        <source>there is no plan to install yet: choose a framework first</source>
        <translation>尚无可安装的方案：请先选择框架</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>WSL is not ready: run %1 yourself, then come back to this page.</source>
        <translation>WSL 尚未就绪：请自行运行 %1，然后回到此页面。</translation>
    </message>
    <message>
        <source>Making WSL ready: answer the windows Windows opens…</source>
        <translation>正在准备 WSL：请在 Windows 打开的窗口中作答…</translation>
    </message>
    <message>
        <source>Cancelling: removing what was made…</source>
        <translation>正在取消：删除已创建的内容…</translation>
    </message>
    <message>
        <source>== cancel requested: stopping and removing what was made</source>
        <translation>== 已请求取消：正在停止并删除已创建的内容</translation>
    </message>
    <message>
        <source>%1 %p%</source>
        <translation>%1 %p%</translation>
    </message>
    <message>
        <source>%v of %m packages</source>
        <translation>%v / %m 个软件包</translation>
    </message>
    <message>
        <source>the installation stopped with an unexpected error: %1</source>
        <translation>安装因意外错误而停止：%1</translation>
    </message>
    <message>
        <source>All steps finished.</source>
        <translation>所有步骤已完成。</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>The environment %1 is ready.</source>
        <translation>环境 %1 已就绪。</translation>
    </message>
    <message>
        <source>%1 (made in %2 s)</source>
        <translation>%1（创建用时 %2 秒）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Cancelled. Nothing was left behind.</source>
        <translation>已取消。未留下任何内容。</translation>
    </message>
    <message>
        <source>Cancelled, but not everything could be removed.</source>
        <translation>已取消，但未能删除全部内容。</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>The environment could not be created.</source>
        <translation>无法创建环境。</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Why: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>Still there, to remove by hand: %1</source>
        <translation>仍然存在，需手动删除：%1</translation>
    </message>
    <message>
        <source>Everything that was made has been removed.</source>
        <translation>已创建的内容已全部删除。</translation>
    </message>
    <message>
        <source>Full log: %1</source>
        <translation>完整日志：%1</translation>
    </message>
    <message>
        <source>No plan has been chosen yet.</source>
        <translation>尚未选择方案。</translation>
    </message>
    <message>
        <source>CPU build</source>
        <translation>CPU 版本</translation>
    </message>
    <message>
        <source>ROCm build (%1)</source>
        <translation>ROCm 版本（%1）</translation>
    </message>
    <message>
        <source>Intel GPU build (XPU)</source>
        <translation>Intel GPU 版本（XPU）</translation>
    </message>
    <message>
        <source>build for the Apple GPU (MPS)</source>
        <translation>适用于 Apple GPU 的版本（MPS）</translation>
    </message>
    <message>
        <source>CUDA %1 build</source>
        <translation>CUDA %1 版本</translation>
    </message>
    <message>
        <source>The environment %1 gets %2 %3 (%4) with Python %5, inside WSL 2 (%6).</source>
        <translation>环境 %1 将获得 %2 %3（%4），使用 Python %5，位于 WSL 2（%6）内。</translation>
    </message>
    <message>
        <source>The environment %1 gets %2 %3 (%4) with Python %5.</source>
        <translation>环境 %1 将安装 %2 %3（%4），Python 版本为 %5。</translation>
    </message>
    <message>
        <source>the default package index</source>
        <translation>默认软件包索引</translation>
    </message>
    <message>
        <source>On the machine itself, this page runs these steps:</source>
        <translation>在原计算机上，此页面会执行以下步骤：</translation>
    </message>
    <message>
        <source>== create: a %1 environment %2 with Python %3</source>
        <translation>== 创建：使用 Python %3 的 %1 环境 %2</translation>
    </message>
    <message>
        <source>== install: %1 from %2</source>
        <translation>== 安装：从 %2 安装 %1</translation>
    </message>
    <message>
        <source>== dlls: a start-up hook makes the NVIDIA wheels&apos; DLL folders visible to every start of the environment&apos;s Python</source>
        <translation>== dlls: 通过启动钩子，使环境的 Python 每次启动时都能看到 NVIDIA wheel 的 DLL 文件夹</translation>
    </message>
    <message>
        <source>== verify: import the framework in the new environment and check its build</source>
        <translation>== 验证：在新环境中导入框架并检查其构建版本</translation>
    </message>
    <message>
        <source>== constraints: pin that build, so later installs cannot replace it</source>
        <translation>== 约束：锁定该构建版本，使后续安装无法替换它</translation>
    </message>
    <message>
        <source>== register: record the environment (gpuwizard env list)</source>
        <translation>== 注册：记录该环境（gpuwizard env list）</translation>
    </message>
    <message>
        <source>the default index</source>
        <translation>默认索引</translation>
    </message>
    <message>
        <source>== creating %1 at %2 with %3 (%4), packages from %5</source>
        <translation>== 正在 %2 创建 %1，使用 %3（%4），软件包来自 %5</translation>
    </message>
    <message>
        <source>== Python %1 is downloaded by uv from %2: none is installed here</source>
        <translation>== uv 从 %2 下载 Python %1：此处未安装</translation>
    </message>
    <message>
        <source>the framework</source>
        <translation>框架</translation>
    </message>
    <message>
        <source>resolving</source>
        <translation>解析中</translation>
    </message>
    <message>
        <source>solving</source>
        <translation>求解中</translation>
    </message>
    <message>
        <source>downloading</source>
        <translation>下载中</translation>
    </message>
    <message>
        <source>building</source>
        <translation>构建中</translation>
    </message>
    <message>
        <source>installing</source>
        <translation>安装中</translation>
    </message>
    <message>
        <source>installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>unpacking</source>
        <translation>解包中</translation>
    </message>
    <message>
        <source>linking</source>
        <translation>链接中</translation>
    </message>
    <message>
        <source>Package: %1%2, %3</source>
        <translation>软件包：%1%2，%3</translation>
    </message>
</context>
<context>
    <name>InstallQuestion</name>
    <message>
        <source>Install</source>
        <translation>安装</translation>
    </message>
    <message>
        <source>Create the environment %1 now?</source>
        <translation>现在创建环境 %1 吗？</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>安装(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Go back</source>
        <translation>返回(&amp;G)</translation>
    </message>
    <message>
        <source>Nothing is downloaded or written; the choices stay as they are.</source>
        <translation>不会下载或写入任何内容；所选项保持不变。</translation>
    </message>
    <message>
        <source>Nothing is downloaded: the packages come only from %1 (%2 of wheels).</source>
        <translation>不会下载任何内容：软件包仅来自 %1（%2 的 wheel 文件）。</translation>
    </message>
    <message>
        <source>About %1 is downloaded (an estimate), from:</source>
        <translation>将下载约 %1（估计值），来源：</translation>
    </message>
    <message>
        <source>An index did not answer when the Choose page checked it: the install will probably fail. Go back to see why and the ways forward.</source>
        <translation>“选择”页面检查时，有一个索引未响应：安装很可能会失败。请返回查看原因和解决办法。</translation>
    </message>
    <message>
        <source>The indexes are still being checked.</source>
        <translation>仍在检查索引。</translation>
    </message>
    <message>
        <source>The environment needs about %1 of free disk.</source>
        <translation>该环境需要约 %1 的可用磁盘空间。</translation>
    </message>
    <message>
        <source>What changes on this machine:</source>
        <translation>本机上将发生的更改：</translation>
    </message>
    <message>
        <source>You can stop it while it runs: what was made is then removed.</source>
        <translation>运行期间可以随时停止：届时会删除已创建的内容。</translation>
    </message>
    <message>
        <source>%1 (GitHub&apos;s copy, if the first does not answer)</source>
        <translation>%1（GitHub 的副本，在第一个无响应时使用）</translation>
    </message>
    <message>
        <source>No Python %1 is installed here, so uv downloads one too, from:</source>
        <translation>此处未安装 Python %1，因此 uv 还会从以下位置下载一个：</translation>
    </message>
    <message>
        <source>It is asked first when the install starts: if it does not answer, nothing is made.</source>
        <translation>安装开始时会先询问它：如果它没有响应，则不会创建任何内容。</translation>
    </message>
    <message>
        <source>%1 (PyPI)</source>
        <translation>%1（PyPI）</translation>
    </message>
</context>
<context>
    <name>LiveTestPage</name>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>A small network trains on the GPU and on the CPU: does the GPU work, and how fast?</source>
        <translation>在 GPU 和 CPU 上分别训练一个小型网络：GPU 是否可用？速度如何？</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: no test runs. On the machine itself, this page trains a small network in the new environment and shows the loss, the speed and the verdict.</source>
        <translation>这是已保存报告的预览：不会运行测试。在原计算机上，此页面会在新环境中训练一个小型网络，并显示损失、速度和结论。</translation>
    </message>
    <message>
        <source>Loss per training step</source>
        <translation>每个训练步的损失</translation>
    </message>
    <message>
        <source>Waiting to start…</source>
        <translation>等待开始…</translation>
    </message>
    <message>
        <source>Test progress</source>
        <translation>测试进度</translation>
    </message>
    <message>
        <source>&amp;Stop the test</source>
        <translation>停止测试(&amp;S)</translation>
    </message>
    <message>
        <source>Stop the running test</source>
        <translation>停止正在运行的测试</translation>
    </message>
    <message>
        <source>&amp;Run again</source>
        <translation>再次运行(&amp;R)</translation>
    </message>
    <message>
        <source>Run the test again</source>
        <translation>再次运行测试</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Nothing runs in a preview.</source>
        <translation>预览中不会运行任何操作。</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>未开始</translation>
    </message>
    <message>
        <source>Nothing to test</source>
        <translation>无可测试内容</translation>
    </message>
    <message>
        <source>There is no environment to test: the installation did not finish.</source>
        <translation>没有可测试的环境：安装未完成。</translation>
    </message>
    <message>
        <source>Starting %1 in the environment…</source>
        <translation>正在环境中启动 %1…</translation>
    </message>
    <message>
        <source>Stopping the test…</source>
        <translation>正在停止测试…</translation>
    </message>
    <message>
        <source>The test stopped</source>
        <translation>测试已停止</translation>
    </message>
    <message>
        <source>The test could not run: %1</source>
        <translation>测试无法运行：%1</translation>
    </message>
    <message>
        <source>The loss appears here as the network trains.</source>
        <translation>网络训练时，损失会显示在这里。</translation>
    </message>
    <message>
        <source>%1 (%2 s)</source>
        <translation>%1（%2 秒）</translation>
    </message>
    <message>
        <source>step %v of %m</source>
        <translation>第 %v / %m 步</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Finished in %1 s</source>
        <translation>已完成，用时 %1 秒</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>You stopped the test before it finished.</source>
        <translation>您在测试完成前停止了测试。</translation>
    </message>
    <message>
        <source>Run it again for a verdict.</source>
        <translation>请再次运行以得出结论。</translation>
    </message>
    <message>
        <source>No training step ran.</source>
        <translation>未运行任何训练步。</translation>
    </message>
    <message>
        <source>The loss fell from %1 to %2: the network learns.</source>
        <translation>损失从 %1 降至 %2：网络在学习。</translation>
    </message>
    <message>
        <source>Why: this machine has no NVIDIA GPU the wizard could use, so the CPU is what there is. The environment works; training will be slower than on a GPU.</source>
        <translation>原因：本机没有向导可用的 NVIDIA GPU，因此只能使用 CPU。环境工作正常；训练速度会比 GPU 慢。</translation>
    </message>
    <message>
        <source>Why: the framework does not see the GPU. Below: the cause and the fix.</source>
        <translation>原因：框架识别不到 GPU。原因和解决方法见下方。</translation>
    </message>
    <message>
        <source>Why: the framework sees no GPU.</source>
        <translation>原因：框架未识别到任何 GPU。</translation>
    </message>
    <message>
        <source>What failed, and what to do, is below.</source>
        <translation>失败之处及解决方法见下方。</translation>
    </message>
    <message>
        <source>The test gave no reason; the full output is in the log.</source>
        <translation>测试未给出原因；完整输出见日志。</translation>
    </message>
    <message>
        <source>Below: what may slow it down.</source>
        <translation>可能拖慢速度的因素见下方。</translation>
    </message>
    <message>
        <source>The test runs in the environment the previous page creates.</source>
        <translation>测试在上一页创建的环境中运行。</translation>
    </message>
    <message>
        <source>Testing %1 in the environment %2 (%3).</source>
        <translation>正在环境 %2（%3）中测试 %1。</translation>
    </message>
</context>
<context>
    <name>LossChart</name>
    <message>
        <source>Training loss per step</source>
        <translation>每步训练损失</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>The loss appears here as the network trains.</source>
        <translation>网络训练时，损失会显示在这里。</translation>
    </message>
    <message>
        <source>%1: %2 steps, loss from %3 to %4</source>
        <translation>%1：%2 步，损失从 %3 变为 %4</translation>
    </message>
    <message>
        <source>training step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
</context>
<context>
    <name>PathDiffView</name>
    <message>
        <source>Planned PATH, entry by entry: + added, − removed</source>
        <translation>计划的 PATH（逐条列出）：+ 添加，− 删除</translation>
    </message>
    <message>
        <source>(empty entry)</source>
        <translation>（空条目）</translation>
    </message>
    <message>
        <source>unchanged: %1</source>
        <translation>未更改：%1</translation>
    </message>
    <message>
        <source>added: %1</source>
        <translation>已添加：%1</translation>
    </message>
    <message>
        <source>removed: %1</source>
        <translation>已删除：%1</translation>
    </message>
</context>
<context>
    <name>PathEntriesView</name>
    <message>
        <source>PATH entries with their problems</source>
        <extracomment>The part of a folder that names its CUDA version (``CUDA<byte value="xb"/>12.1``, ``cuda-12.4``, ``CUDA/12.1``).</extracomment>
        <translation>PATH 条目及其问题</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>条目</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>System PATH</source>
        <translation>系统 PATH</translation>
    </message>
    <message>
        <source>User PATH</source>
        <translation>用户 PATH</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>无值</translation>
    </message>
    <message>
        <source>%1 · entries: %2</source>
        <translation>%1 · 条目：%2</translation>
    </message>
    <message>
        <source>(empty entry)</source>
        <translation>（空条目）</translation>
    </message>
    <message>
        <source>An empty entry: two &apos;;&apos; in a row, or one at the end.</source>
        <translation>空条目：连续两个 &apos;;&apos;，或末尾有一个 &apos;;&apos;。</translation>
    </message>
    <message>
        <source>folder missing</source>
        <translation>文件夹不存在</translation>
    </message>
    <message>
        <source>duplicate</source>
        <translation>重复</translation>
    </message>
    <message>
        <source>other CUDA version first</source>
        <translation>其他 CUDA 版本在前</translation>
    </message>
    <message>
        <source>REG_SZ with %VARS%</source>
        <translation>REG_SZ 含 %VARS%</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>Missing: this folder does not exist. It does no harm, but makes PATH longer.</source>
        <translation>缺失：此文件夹不存在。它没有危害，但会使 PATH 变长。</translation>
    </message>
    <message>
        <source>Duplicate: this folder is on PATH earlier already (the system PATH comes first); only the first one counts.</source>
        <translation>重复：此文件夹已在 PATH 中更靠前的位置出现（系统 PATH 在前）；只有第一个有效。</translation>
    </message>
    <message>
        <source>Other CUDA version first: an entry of another CUDA version comes earlier, so programs load that version&apos;s DLLs, not these.</source>
        <translation>其他 CUDA 版本在前：另一 CUDA 版本的条目排在前面，因此程序加载的是该版本的 DLL，而不是这些。</translation>
    </message>
    <message>
        <source>REG_SZ with %VARS%: this PATH is stored as REG_SZ, which Windows never expands, so the %VARIABLE% stays literal text and the folder is never searched.</source>
        <translation>REG_SZ 含 %VARS%：此 PATH 以 REG_SZ 类型存储，Windows 从不展开此类值，因此 %VARIABLE% 会保留为字面文本，对应文件夹永远不会被搜索。</translation>
    </message>
    <message>
        <source>Empty: harmless, an extra &apos;;&apos;.</source>
        <translation>空：没有危害，只是多了一个 &apos;;&apos;。</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>An entry of CUDA %1.</source>
        <translation>CUDA %1 的条目。</translation>
    </message>
</context>
<context>
    <name>PathPage</name>
    <message>
        <source>PATH</source>
        <translation>PATH</translation>
    </message>
    <message>
        <source>Put the folders the plan needs on PATH, safely: see the change first, undo it any time.</source>
        <translation>安全地将方案所需的文件夹加入 PATH：先查看更改，随时可撤销。</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: nothing on this machine changes, so Apply and Undo are off.</source>
        <translation>这是已保存报告的预览：本机不会发生任何更改，因此“应用”和“撤销”不可用。</translation>
    </message>
    <message>
        <source>PATH now (system first, then user)</source>
        <translation>当前 PATH（先系统，后用户）</translation>
    </message>
    <message>
        <source>Planned change</source>
        <translation>计划的更改</translation>
    </message>
    <message>
        <source>User PATH (you only)</source>
        <translation>用户 PATH（仅限您）</translation>
    </message>
    <message>
        <source>System PATH (all users; admin)</source>
        <translation>系统 PATH（所有用户；需管理员权限）</translation>
    </message>
    <message>
        <source>Which PATH to change</source>
        <translation>要更改哪个 PATH</translation>
    </message>
    <message>
        <source>Windows puts the system PATH before the user PATH. Changing the system PATH asks for administrator rights.</source>
        <translation>Windows 会将系统 PATH 排在用户 PATH 之前。更改系统 PATH 需要管理员权限。</translation>
    </message>
    <message>
        <source>Keep them (after these)</source>
        <translation>保留（排在这些之后）</translation>
    </message>
    <message>
        <source>Move them to the end</source>
        <translation>移到末尾</translation>
    </message>
    <message>
        <source>Remove them</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>What to do with other CUDA versions on PATH</source>
        <translation>如何处理 PATH 中的其他 CUDA 版本</translation>
    </message>
    <message>
        <source>Entries of another CUDA version: the first CUDA on PATH is the one programs load.</source>
        <translation>其他 CUDA 版本的条目：程序加载的是 PATH 中的第一个 CUDA。</translation>
    </message>
    <message>
        <source>&amp;Add to:</source>
        <translation>添加到(&amp;A)：</translation>
    </message>
    <message>
        <source>Other &amp;CUDA:</source>
        <translation>其他 CUDA(&amp;C)：</translation>
    </message>
    <message>
        <source>A&amp;pply</source>
        <translation>应用(&amp;P)</translation>
    </message>
    <message>
        <source>Apply the planned PATH change</source>
        <translation>应用计划的 PATH 更改</translation>
    </message>
    <message>
        <source>Write the change, recorded in the PATH journal so that Undo can revert it exactly.</source>
        <translation>写入更改，并记录到 PATH 日志中，以便“撤销”能准确还原。</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>Undo the last PATH change</source>
        <translation>撤销上一次 PATH 更改</translation>
    </message>
    <message>
        <source>Put back the PATH as it was before the last change, exactly.</source>
        <translation>将 PATH 准确恢复到上一次更改之前的状态。</translation>
    </message>
    <message>
        <source>Working</source>
        <translation>正在处理</translation>
    </message>
    <message>
        <source>The plan adds folders to PATH so that programs find %1.</source>
        <translation>此方案会向 PATH 添加文件夹，以便程序找到 %1。</translation>
    </message>
    <message>
        <source>The plan adds folders to PATH.</source>
        <translation>此方案会向 PATH 添加文件夹。</translation>
    </message>
    <message>
        <source>Working on the registry snapshot %1.</source>
        <translation>正在处理注册表快照 %1。</translation>
    </message>
    <message>
        <source>Reading PATH…</source>
        <translation>正在读取 PATH…</translation>
    </message>
    <message>
        <source>Applying…</source>
        <translation>正在应用…</translation>
    </message>
    <message>
        <source>Undoing…</source>
        <translation>正在撤销…</translation>
    </message>
    <message>
        <source>Checking the DLLs…</source>
        <translation>正在检查 DLL…</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: nothing on this machine changes, so Apply and Undo are off. A saved report does not hold that machine&apos;s PATH, so this page lists the folders the plan adds; on the machine itself it shows PATH entry by entry and the exact change.</source>
        <translation>这是已保存报告的预览：本机不会发生任何更改，因此“应用”和“撤销”不可用。已保存的报告不包含那台计算机的 PATH，因此此页面列出方案要添加的文件夹；在原计算机上，此页面会逐条显示 PATH 及确切的更改。</translation>
    </message>
    <message>
        <source>system PATH</source>
        <translation>系统 PATH</translation>
    </message>
    <message>
        <source>user PATH</source>
        <translation>用户 PATH</translation>
    </message>
    <message>
        <source>The %1 gets these folders, in this order, before any other CUDA version:</source>
        <translation>%1 将按以下顺序加入这些文件夹，排在其他任何 CUDA 版本之前：</translation>
    </message>
    <message>
        <source>On the machine itself, changing the system PATH asks for administrator rights.</source>
        <translation>在原计算机上，更改系统 PATH 需要管理员权限。</translation>
    </message>
    <message>
        <source>Something went wrong, and nothing was changed: %1</source>
        <translation>出现错误，未做任何更改：%1</translation>
    </message>
    <message>
        <source>PATH could not be read: %1</source>
        <translation>无法读取 PATH：%1</translation>
    </message>
    <message>
        <source>DLLs with the same name (cuDNN&apos;s, for one) load from the first folder on PATH. Set “%1” to “%2” (Windows asks for administrator rights when you apply), and “%3” to “%4” or “%5”, so that these folders come before the other version.</source>
        <translation>同名的 DLL（例如 cuDNN 的）会从 PATH 中的第一个文件夹加载。请将“%1”设为“%2”（应用时 Windows 会要求管理员权限），并将“%3”设为“%4”或“%5”，使这些文件夹排在另一个版本之前。</translation>
    </message>
</context>
<context>
    <name>PathResultBox</name>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>DLLs a program started now finds</source>
        <translation>现在启动的程序能找到的 DLL</translation>
    </message>
    <message>
        <source>DLL</source>
        <translation>DLL</translation>
    </message>
    <message>
        <source>Where it loads from</source>
        <translation>加载位置</translation>
    </message>
    <message>
        <source>Nothing was changed: %1</source>
        <translation>未做任何更改：%1</translation>
    </message>
    <message>
        <source>system PATH</source>
        <translation>系统 PATH</translation>
    </message>
    <message>
        <source>user PATH</source>
        <translation>用户 PATH</translation>
    </message>
    <message>
        <source>Nothing to change: the %1 has the folders already.</source>
        <translation>无需更改：%1 中已有这些文件夹。</translation>
    </message>
    <message>
        <source>Undone: the %1 is back as it was before the change.</source>
        <translation>已撤销：%1 已恢复到更改前的状态。</translation>
    </message>
    <message>
        <source>Done: the %1 is changed. The change is in the PATH journal; Undo reverts it.</source>
        <translation>完成：%1 已更改。此更改已记入 PATH 日志，可用“撤销”还原。</translation>
    </message>
    <message>
        <source>This is a registry snapshot file: no program running here reads it. On the machine it belongs to, programs started after the change see it; those already open (terminals, VS Code, PyCharm, Jupyter) must be restarted.</source>
        <translation>这是注册表快照文件：此处运行的程序都不会读取它。在其所属的计算机上，更改后启动的程序会看到更改；已打开的程序（终端、VS Code、PyCharm、Jupyter）必须重新启动。</translation>
    </message>
    <message>
        <source>Checking from a new process which DLLs load…</source>
        <translation>正在从新进程检查会加载哪些 DLL…</translation>
    </message>
    <message>
        <source>DLLs a program started now finds: %1 of %2.</source>
        <translation>现在启动的程序能找到的 DLL：%1 / %2。</translation>
    </message>
    <message>
        <source>found: %1</source>
        <translation>已找到：%1</translation>
    </message>
    <message>
        <source>not found: %1</source>
        <translation>未找到：%1</translation>
    </message>
</context>
<context>
    <name>PlanPanel</name>
    <message>
        <source>What to look at</source>
        <translation>需要注意的事项</translation>
    </message>
    <message>
        <source>Alternatives, best first</source>
        <translation>备选方案（按优先顺序）</translation>
    </message>
    <message>
        <source>Alternatives</source>
        <translation>备选方案</translation>
    </message>
    <message>
        <source>Compatibility data</source>
        <translation>兼容性数据</translation>
    </message>
    <message>
        <source>The plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Framework:</source>
        <translation>框架：</translation>
    </message>
    <message>
        <source>Python:</source>
        <translation>Python：</translation>
    </message>
    <message>
        <source>CUDA / cuDNN:</source>
        <translation>CUDA / cuDNN：</translation>
    </message>
    <message>
        <source>CUDA is NVIDIA&apos;s platform for computing on the GPU; cuDNN is its library of deep-learning building blocks. A framework build is made for one CUDA version, and the driver must support it.</source>
        <translation>CUDA 是 NVIDIA 的 GPU 计算平台；cuDNN 是其深度学习基础组件库。每个框架构建版本都针对某一 CUDA 版本编译，驱动程序必须支持该版本。</translation>
    </message>
    <message>
        <source>Driver:</source>
        <translation>驱动程序：</translation>
    </message>
    <message>
        <source>The NVIDIA driver must be at least as new as the CUDA version of the build needs.</source>
        <translation>NVIDIA 驱动程序的版本不得低于该构建版本所需的 CUDA 版本要求。</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境：</translation>
    </message>
    <message>
        <source>conda installs:</source>
        <translation>conda 安装：</translation>
    </message>
    <message>
        <source>conda: an environment manager that can also install CUDA and cuDNN into the environment.</source>
        <translation>conda：一种环境管理器，还能将 CUDA 和 cuDNN 安装到环境中。</translation>
    </message>
    <message>
        <source>pip installs:</source>
        <translation>pip 安装：</translation>
    </message>
    <message>
        <source>Why:</source>
        <translation>原因：</translation>
    </message>
    <message>
        <source>What will change on this machine</source>
        <translation>本机将发生的更改</translation>
    </message>
    <message>
        <source>The recommendation failed: %1</source>
        <translation>推荐失败：%1</translation>
    </message>
</context>
<context>
    <name>PlannedChangeView</name>
    <message>
        <source>This change cannot be made: %1</source>
        <translation>无法进行此更改：%1</translation>
    </message>
    <message>
        <source>Windows will ask for administrator rights when you apply: the system PATH is shared by every user.</source>
        <translation>应用时 Windows 会请求管理员权限：系统 PATH 由所有用户共享。</translation>
    </message>
    <message>
        <source>The wizard has administrator rights already: the system PATH is shared by every user.</source>
        <translation>向导已具有管理员权限：系统 PATH 由所有用户共享。</translation>
    </message>
    <message>
        <source>On the machine itself, changing the system PATH asks for administrator rights; this snapshot file needs none.</source>
        <translation>在原计算机上，更改系统 PATH 需要管理员权限；此快照文件则不需要。</translation>
    </message>
    <message>
        <source>system PATH</source>
        <translation>系统 PATH</translation>
    </message>
    <message>
        <source>user PATH</source>
        <translation>用户 PATH</translation>
    </message>
    <message>
        <source>Nothing to change: the folders are on the %1 already.</source>
        <translation>无需更改：这些文件夹已在 %1 中。</translation>
    </message>
    <message numerus="yes">
        <source>%n to add</source>
        <translation>
            <numerusform>%n 项待添加</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to move</source>
        <translation>
            <numerusform>%n 项待移动</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to remove</source>
        <translation>
            <numerusform>%n 项待删除</numerusform>
        </translation>
    </message>
    <message>
        <source>The %1 after the change:</source>
        <translation>更改后的 %1：</translation>
    </message>
    <message>
        <source>The %1 after the change (%2):</source>
        <translation>更改后的 %1（%2）：</translation>
    </message>
</context>
<context>
    <name>QtReportView</name>
    <message>
        <source>CUDA: three different numbers</source>
        <translation>CUDA：三个不同的版本号</translation>
    </message>
    <message>
        <source>Graphics hardware</source>
        <translation>图形硬件</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>What to look at</source>
        <translation>需要注意的事项</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详细信息</translation>
    </message>
    <message>
        <source>Ready for GPU training on %1.</source>
        <translation>已可在 %1 上进行 GPU 训练。</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is here, but GPU training does not work yet.</source>
        <translation>本机有 NVIDIA GPU，但目前还无法进行 GPU 训练。</translation>
    </message>
    <message>
        <source>%1 found: the next page checks which builds carry code for it.</source>
        <translation>已找到 %1：下一页将检查哪些构建版本包含适用于它的代码。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU here: PyTorch and TensorFlow run on the CPU, with their CPU builds.</source>
        <translation>这里没有 NVIDIA GPU：PyTorch 和 TensorFlow 使用其 CPU 版本在 CPU 上运行。</translation>
    </message>
    <message>
        <source>No usable NVIDIA GPU: GPU training is not possible here yet.</source>
        <translation>没有可用的 NVIDIA GPU：目前无法在本机进行 GPU 训练。</translation>
    </message>
    <message>
        <source>No NVIDIA driver answered, so no CUDA version can run yet.</source>
        <translation>没有 NVIDIA 驱动程序响应，因此目前无法运行任何 CUDA 版本。</translation>
    </message>
    <message>
        <source>CUDA %1 or older (driver %2)</source>
        <translation>CUDA %1 或更早版本（驱动程序 %2）</translation>
    </message>
    <message>
        <source>Unknown: driver %1 does not report it</source>
        <translation>未知：驱动程序 %1 未报告此信息</translation>
    </message>
    <message>
        <source>Your driver supports</source>
        <translation>您的驱动程序支持</translation>
    </message>
    <message>
        <source>A limit, not something installed: the newest CUDA a framework build may use (nvidia-smi calls it “CUDA Version”).</source>
        <translation>这是上限，而非已安装的内容：框架构建版本可使用的最新 CUDA（nvidia-smi 中称为“CUDA Version”）。</translation>
    </message>
    <message>
        <source>unknown version</source>
        <translation>版本未知</translation>
    </message>
    <message>
        <source>(first on PATH)</source>
        <translation>（PATH 中的第一个）</translation>
    </message>
    <message>
        <source>(on PATH)</source>
        <translation>（在 PATH 中）</translation>
    </message>
    <message>
        <source>None (PyTorch on Windows does not need one)</source>
        <translation>无（Windows 上的 PyTorch 不需要）</translation>
    </message>
    <message>
        <source>Needed only to compile CUDA code, or for TensorFlow 2.10 or older in a venv without NVIDIA&apos;s CUDA wheels. PyTorch brings its own CUDA; TensorFlow 2.11+ uses the GPU only in WSL 2.</source>
        <translation>仅在编译 CUDA 代码，或在没有 NVIDIA CUDA wheel 的 venv 中使用 TensorFlow 2.10 或更早版本时才需要。PyTorch 自带 CUDA；TensorFlow 2.11+ 只能在 WSL 2 中使用 GPU。</translation>
    </message>
    <message>
        <source>None (current frameworks have no CUDA build for macOS)</source>
        <translation>无（当前的框架没有适用于 macOS 的 CUDA 版本）</translation>
    </message>
    <message>
        <source>CUDA for macOS ended with CUDA 10.2; PyTorch and TensorFlow use the GPU of a Mac through Apple&apos;s Metal.</source>
        <translation>macOS 上的 CUDA 止于 CUDA 10.2；PyTorch 和 TensorFlow 在 Mac 上通过 Apple 的 Metal 使用 GPU。</translation>
    </message>
    <message>
        <source>None (PyTorch and current TensorFlow on Linux do not need one)</source>
        <translation>无（PyTorch 和当前 Linux 版 TensorFlow 不需要）</translation>
    </message>
    <message>
        <source>CUDA toolkits on disk</source>
        <translation>磁盘上的 CUDA 工具包</translation>
    </message>
    <message>
        <source>Needed only for TensorFlow 2.10 or older on native Windows, or to compile CUDA code. PyTorch and TensorFlow 2.14+ on Linux bring their own CUDA.</source>
        <translation>仅在原生 Windows 上使用 TensorFlow 2.10 或更早版本，或编译 CUDA 代码时才需要。PyTorch 以及 Linux 上的 TensorFlow 2.14+ 自带 CUDA。</translation>
    </message>
    <message>
        <source>The framework brings</source>
        <translation>框架自带</translation>
    </message>
    <message>
        <source>Chosen in the next step, to match the driver and the GPU</source>
        <translation>在下一步中选择，以匹配驱动程序和 GPU</translation>
    </message>
    <message>
        <source>Must not be newer than what the driver supports, and must contain code for your GPU&apos;s compute capability.</source>
        <translation>不得高于驱动程序支持的版本，且必须包含适用于您 GPU 计算能力的代码。</translation>
    </message>
    <message>
        <source>working</source>
        <translation>正常工作</translation>
    </message>
    <message>
        <source>not responding</source>
        <translation>无响应</translation>
    </message>
    <message>
        <source>no driver</source>
        <translation>无驱动程序</translation>
    </message>
    <message>
        <source>PCI bus %1</source>
        <translation>PCI 总线 %1</translation>
    </message>
    <message>
        <source>No graphics hardware was found</source>
        <translation>未找到图形硬件</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>What a framework build must carry code for: the compute capability of an NVIDIA GPU (8.6 for the GeForce RTX 30 series), the target of an AMD GPU (gfx1100 for the Radeon RX 7900 series). A build runs only on the ones it was compiled for.</source>
        <translation>框架构建版本必须包含其代码的对象：NVIDIA GPU 的计算能力（GeForce RTX 30 系列为 8.6），AMD GPU 的目标（Radeon RX 7900 系列为 gfx1100）。构建版本只能在其编译时所针对的 GPU 上运行。</translation>
    </message>
    <message>
        <source>PCI id %1</source>
        <translation>PCI ID %1</translation>
    </message>
    <message>
        <source>Driver %1</source>
        <translation>驱动程序 %1</translation>
    </message>
    <message>
        <source>Kernel driver %1</source>
        <translation>内核驱动程序 %1</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Python %1 (%2-bit) at %3</source>
        <translation>Python %1（%2 位），位于 %3</translation>
    </message>
    <message>
        <source>No Python found; the wizard can provide one</source>
        <translation>未找到 Python；向导可以提供一个</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>Other Pythons</source>
        <translation>其他 Python</translation>
    </message>
    <message>
        <source>Environment tools</source>
        <translation>环境工具</translation>
    </message>
    <message>
        <source>none found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>cuDNN</source>
        <translation>cuDNN</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s deep-learning library. Frameworks bring their own, except TensorFlow 2.10 or older on Windows.</source>
        <translation>NVIDIA 的深度学习库。各框架都自带 cuDNN，但 Windows 上的 TensorFlow 2.10 或更早版本除外。</translation>
    </message>
    <message>
        <source>on</source>
        <translation>已启用</translation>
    </message>
    <message>
        <source>off</source>
        <translation>已禁用</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Long paths</source>
        <translation>长路径</translation>
    </message>
</context>
<context>
    <name>SetupWizard</name>
    <message>
        <source>GPU Setup Wizard</source>
        <translation>GPU 设置向导</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>安装(&amp;I)</translation>
    </message>
    <message>
        <source>Showing the saved report %1. Nothing on this machine will change.</source>
        <translation>正在显示已保存的报告 %1。本机不会发生任何更改。</translation>
    </message>
</context>
<context>
    <name>SourceCheckView</name>
    <message>
        <source>Where the packages come from</source>
        <extracomment>Where the view sits in the answer while nothing stands in the way: after what will change. The person asked for PyPI&apos;s build (True) or PyTorch&apos;s index again (False).</extracomment>
        <translation>软件包来源</translation>
    </message>
    <message>
        <source>Ask the i&amp;ndexes again</source>
        <extracomment>What asks an index (tests may hand in another; it asks nothing with GPUWIZARD_NO_INDEX_CHECK=1).</extracomment>
        <translation>重新查询索引(&amp;N)</translation>
    </message>
    <message>
        <source>Ask again, for example after changing the proxy or mirror settings and restarting the wizard.</source>
        <translation>重新查询，例如在更改代理或镜像设置并重启向导之后。</translation>
    </message>
    <message>
        <source>&amp;Switch to PyPI&apos;s build</source>
        <translation>改用 PyPI 的构建版本(&amp;S)</translation>
    </message>
    <message>
        <source>Install the same release as PyPI builds it, instead of from PyTorch&apos;s own index.</source>
        <translation>安装 PyPI 构建的同一版本，而不是从 PyTorch 自己的索引安装。</translation>
    </message>
    <message>
        <source>Install stays off until the packages can be fetched: take one of these ways forward.</source>
        <translation>在能够获取软件包之前，“安装”保持不可用：请选择以下任一方法。</translation>
    </message>
    <message>
        <source>The package indexes could not be asked (%1); the install will say if one fails.</source>
        <translation>无法查询软件包索引（%1）；如果某个索引出错，安装过程会给出提示。</translation>
    </message>
    <message>
        <source>This mirror setting cannot be used: %1</source>
        <translation>无法使用此镜像设置：%1</translation>
    </message>
    <message>
        <source>Checking %1 …</source>
        <translation>正在检查 %1 …</translation>
    </message>
    <message>
        <source>The package indexes answer: the install can fetch its packages.</source>
        <translation>软件包索引有响应：安装可以获取所需的软件包。</translation>
    </message>
    <message>
        <source>Switch back to PyTorch&apos;s inde&amp;x</source>
        <translation>改回 PyTorch 的索引(&amp;X)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>✓ %1: answers</source>
        <translation>✓ %1：有响应</translation>
    </message>
</context>
<context>
    <name>StopQuestion</name>
    <message>
        <source>Stop the install</source>
        <translation>停止安装</translation>
    </message>
    <message>
        <source>Stop the install?</source>
        <translation>要停止安装吗？</translation>
    </message>
    <message>
        <source>What was downloaded and made so far is removed.</source>
        <translation>目前已下载和创建的内容将被删除。</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Keep installing</source>
        <translation>继续安装(&amp;K)</translation>
    </message>
</context>
<context>
    <name>SummaryPage</name>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>The verdict, and what to do next.</source>
        <translation>结论及后续操作。</translation>
    </message>
    <message>
        <source>Your environment</source>
        <translation>您的环境</translation>
    </message>
    <message>
        <source>Run this in a new terminal to use the environment.</source>
        <translation>在新终端中运行此命令即可使用该环境。</translation>
    </message>
    <message>
        <source>Select this interpreter in VS Code (Python: Select Interpreter) or PyCharm.</source>
        <translation>在 VS Code（Python: Select Interpreter）或 PyCharm 中选择此解释器。</translation>
    </message>
    <message>
        <source>&amp;Copy the interpreter path</source>
        <translation>复制解释器路径(&amp;C)</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Activate:</source>
        <translation>激活：</translation>
    </message>
    <message>
        <source>Interpreter:</source>
        <translation>解释器：</translation>
    </message>
    <message>
        <source>Jupyter kernel:</source>
        <translation>Jupyter 内核：</translation>
    </message>
    <message>
        <source>Live test:</source>
        <translation>实时测试：</translation>
    </message>
    <message>
        <source>in PowerShell or cmd</source>
        <translation>在 PowerShell 或 cmd 中</translation>
    </message>
    <message>
        <source>in %1&apos;s shell</source>
        <translation>在 %1 的 shell 中</translation>
    </message>
    <message>
        <source>PowerShell or cmd</source>
        <translation>PowerShell 或 cmd</translation>
    </message>
    <message>
        <source>then in %1</source>
        <translation>然后在 %1 中</translation>
    </message>
    <message>
        <source>%1, %2 %3 in %4</source>
        <translation>%1，%2 %3，位于 %4</translation>
    </message>
    <message>
        <source>none (choose one on the Choose page next time)</source>
        <translation>无（下次请在“选择”页面中选择一个）</translation>
    </message>
    <message>
        <source>(%1× the CPU)</source>
        <translation>（CPU 的 %1 倍）</translation>
    </message>
    <message>
        <source>%1: whether it trains is the live test&apos;s answer.</source>
        <translation>%1：能否训练，由实时测试给出答案。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU here: PyTorch and TensorFlow run on the CPU.</source>
        <translation>这里没有 NVIDIA GPU：PyTorch 和 TensorFlow 在 CPU 上运行。</translation>
    </message>
    <message>
        <source>This machine cannot train on a GPU yet.</source>
        <translation>本机目前还无法在 GPU 上训练。</translation>
    </message>
    <message>
        <source>The way forward:</source>
        <translation>下一步：</translation>
    </message>
    <message>
        <source>Saved the system report to %1.</source>
        <translation>已将系统报告保存到 %1。</translation>
    </message>
    <message>
        <source>The environment %1 is ready (not tested).</source>
        <translation>环境 %1 已就绪（未测试）。</translation>
    </message>
    <message>
        <source>Save a report</source>
        <translation>保存报告</translation>
    </message>
    <message>
        <source>&amp;Save the system report…</source>
        <translation>保存系统报告(&amp;S)…</translation>
    </message>
    <message>
        <source>What was found on this machine, with the plan, environment and test the wizard made: a JSON file the wizard can open again to show this machine and its plan.</source>
        <translation>在这台机器上发现的内容，以及向导制定的计划、创建的环境和运行的测试：一个向导可以再次打开以显示这台机器及其计划的 JSON 文件。</translation>
    </message>
    <message>
        <source>For someone helping you: the machine, PATH, the environments, the last tests and what is wrong, as a web page, Markdown or JSON, with your user name, home folder and GPU serial numbers replaced.</source>
        <translation>给帮助你的人：机器、PATH、环境、最近的测试以及出错的地方，格式为网页、Markdown 或 JSON，其中你的用户名、主文件夹和 GPU 序列号已被替换。</translation>
    </message>
    <message>
        <source>The environment %1 is ready.</source>
        <translation>环境 %1 已就绪。</translation>
    </message>
    <message>
        <source>The environment %1 was made.</source>
        <translation>环境 %1 已创建。</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Recorded as the last good state: start the wizard again after a driver or framework update, and it checks what changed.</source>
        <translation>已记录为上次正常状态：更新驱动程序或框架后再次启动向导，它会检查有哪些变化。</translation>
    </message>
    <message>
        <source>This machine is ready for GPU frameworks: %1.</source>
        <translation>本机已可使用 GPU 框架：%1。</translation>
    </message>
    <message>
        <source>What to do first:</source>
        <translation>首先要做的：</translation>
    </message>
    <message>
        <source>Worth a look:</source>
        <translation>值得关注：</translation>
    </message>
    <message>
        <source>Nothing stands in the way.</source>
        <translation>没有任何障碍。</translation>
    </message>
    <message>
        <source>Save the system report</source>
        <translation>保存系统报告</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>The report was not saved: %1</source>
        <translation>报告未保存：%1</translation>
    </message>
</context>
<context>
    <name>SupportReportControl</name>
    <message>
        <source>Save a support re&amp;port…</source>
        <translation>保存支持报告(&amp;P)…</translation>
    </message>
    <message>
        <source>Save everything someone helping you needs (the machine, PATH, the environments, the last tests, what is wrong) as a web page, Markdown or JSON. GPU serial numbers and UUIDs, your user name and your home folder are replaced before it is written.</source>
        <translation>将协助您的人所需的一切（本机、PATH、环境、最近的测试、出错之处）保存为网页、Markdown 或 JSON。写入前会替换 GPU 序列号和 UUID、您的用户名和主文件夹。</translation>
    </message>
    <message>
        <source>Save a support report</source>
        <translation>保存支持报告</translation>
    </message>
    <message>
        <source>Web page (*.html);;Markdown (*.md);;JSON (*.json)</source>
        <translation>网页 (*.html);;Markdown (*.md);;JSON (*.json)</translation>
    </message>
    <message>
        <source>Saving the support report…</source>
        <translation>正在保存支持报告…</translation>
    </message>
    <message>
        <source>Saved to %1, with serial numbers, UUIDs, your user name and home folder replaced.</source>
        <translation>已保存到 %1，序列号、UUID、您的用户名和主文件夹均已替换。</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>The support report was not saved: %1</source>
        <translation>支持报告未保存：%1</translation>
    </message>
</context>
<context>
    <name>TestNumbers</name>
    <message>
        <source>Measurements</source>
        <translation>测量结果</translation>
    </message>
    <message>
        <source>Framework:</source>
        <translation>框架：</translation>
    </message>
    <message>
        <source>Framework build</source>
        <translation>框架构建版本</translation>
    </message>
    <message>
        <source>GPU:</source>
        <translation>GPU：</translation>
    </message>
    <message>
        <source>The GPU the framework sees</source>
        <translation>框架识别到的 GPU</translation>
    </message>
    <message>
        <source>CPU:</source>
        <translation>CPU：</translation>
    </message>
    <message>
        <source>The CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>GPU samples/s:</source>
        <translation>GPU 样本/秒：</translation>
    </message>
    <message>
        <source>Training samples per second on the GPU</source>
        <translation>GPU 上每秒训练的样本数</translation>
    </message>
    <message>
        <source>CPU samples/s:</source>
        <translation>CPU 样本/秒：</translation>
    </message>
    <message>
        <source>Training samples per second on the CPU</source>
        <translation>CPU 上每秒训练的样本数</translation>
    </message>
    <message>
        <source>Speed-up:</source>
        <translation>加速比：</translation>
    </message>
    <message>
        <source>How many times faster the GPU trains than the CPU</source>
        <translation>GPU 训练速度是 CPU 的多少倍</translation>
    </message>
    <message>
        <source>Matrix multiply:</source>
        <translation>矩阵乘法：</translation>
    </message>
    <message>
        <source>Matrix multiply rate on the GPU</source>
        <translation>GPU 上的矩阵乘法速率</translation>
    </message>
    <message>
        <source>GPU utilisation:</source>
        <translation>GPU 利用率：</translation>
    </message>
    <message>
        <source>GPU utilisation during the test</source>
        <translation>测试期间的 GPU 利用率</translation>
    </message>
    <message>
        <source>GPU memory:</source>
        <translation>GPU 显存：</translation>
    </message>
    <message>
        <source>GPU memory in use during the test</source>
        <translation>测试期间使用的 GPU 显存</translation>
    </message>
    <message>
        <source>GPU samples per second divided by CPU samples per second, same network and data.</source>
        <translation>GPU 每秒样本数除以 CPU 每秒样本数（网络和数据相同）。</translation>
    </message>
    <message>
        <source>TFLOP/s: trillions of floating-point operations per second on large matrix multiplies.</source>
        <translation>TFLOP/s：大型矩阵乘法中每秒执行的万亿次浮点运算数。</translation>
    </message>
    <message>
        <source>Share of time the GPU was running work, as the NVIDIA driver reports it (NVML).</source>
        <translation>GPU 处于工作状态的时间占比，由 NVIDIA 驱动程序报告（NVML）。</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>— (needs both GPU and CPU)</source>
        <translation>—（需要同时测量 GPU 和 CPU）</translation>
    </message>
    <message numerus="yes">
        <source> (%n threads)</source>
        <translation>
            <numerusform> (%n 个线程)</numerusform>
        </translation>
    </message>
    <message>
        <source>none visible</source>
        <translation>无可见 GPU</translation>
    </message>
    <message>
        <source>not measured: no GPU is used</source>
        <translation>未测量：未使用 GPU</translation>
    </message>
    <message>
        <source>%1: %2 TFLOP/s</source>
        <translation>%1：%2 TFLOP/s</translation>
    </message>
    <message>
        <source>not measured: the wizard samples NVIDIA GPUs only</source>
        <translation>未测量：向导只对 NVIDIA GPU 采样</translation>
    </message>
    <message>
        <source>no NVIDIA GPU on this machine</source>
        <translation>本机没有 NVIDIA GPU</translation>
    </message>
    <message>
        <source>not measured (the driver gave no samples)</source>
        <translation>未测量（驱动程序未提供采样数据）</translation>
    </message>
    <message>
        <source>waiting for samples…</source>
        <translation>正在等待采样数据…</translation>
    </message>
    <message>
        <source>%1 % now, %2 % at most</source>
        <translation>当前 %1 %，最高 %2 %</translation>
    </message>
    <message>
        <source>%1 % at most</source>
        <translation>最高 %1 %</translation>
    </message>
    <message>
        <source>%1 MiB in use, %2 MiB at most</source>
        <translation>已用 %1 MiB，最高 %2 MiB</translation>
    </message>
    <message>
        <source>%1 MiB at most</source>
        <translation>最高 %1 MiB</translation>
    </message>
    <message>
        <source>ROCm build (HIP %1)</source>
        <translation>ROCm 构建版本（HIP %1）</translation>
    </message>
    <message>
        <source>Intel XPU build</source>
        <translation>Intel XPU 构建版本</translation>
    </message>
    <message>
        <source>Apple GPU through MPS (macOS %1)</source>
        <translation>通过 MPS 使用 Apple GPU（macOS %1）</translation>
    </message>
    <message>
        <source>CUDA %1 build</source>
        <translation>CUDA %1 版本</translation>
    </message>
    <message>
        <source>CPU build (no CUDA)</source>
        <translation>CPU 版本（不含 CUDA）</translation>
    </message>
    <message>
        <source>build unknown</source>
        <translation>版本未知</translation>
    </message>
</context>
<context>
    <name>VerifyPage</name>
    <message>
        <source>Verify your setup</source>
        <translation>验证您的设置</translation>
    </message>
    <message>
        <source>Is everything still as it was when it last worked? Driver, GPUs, environments, PATH.</source>
        <translation>一切是否仍与上次正常工作时相同？包括驱动程序、GPU、环境和 PATH。</translation>
    </message>
    <message>
        <source>Set &amp;up again &gt;</source>
        <translation>重新设置(&amp;U) &gt;</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>Checks</source>
        <translation>检查项</translation>
    </message>
    <message>
        <source>Verification in progress</source>
        <translation>正在验证</translation>
    </message>
    <message>
        <source>&amp;Check again</source>
        <translation>再次检查(&amp;C)</translation>
    </message>
    <message>
        <source>Run the checks again</source>
        <translation>再次运行检查</translation>
    </message>
    <message>
        <source>&amp;Repair…</source>
        <translation>修复(&amp;R)…</translation>
    </message>
    <message>
        <source>Set the broken environment up again</source>
        <translation>重新设置损坏的环境</translation>
    </message>
    <message>
        <source>Sets the broken environment up again with the same framework, version and name: the wizard shows the plan first, and puts the old one back if the new one fails.</source>
        <translation>使用相同的框架、版本和名称重新设置损坏的环境：向导会先显示方案，新环境创建失败时会恢复旧环境。</translation>
    </message>
    <message>
        <source>The checks could not run: %1</source>
        <translation>无法运行检查：%1</translation>
    </message>
    <message>
        <source>Nothing to verify: the wizard has not set up anything on this machine yet.</source>
        <translation>没有可验证的内容：向导尚未在本机上设置任何内容。</translation>
    </message>
    <message>
        <source>Press Set up to start: nothing was checked or recorded.</source>
        <translation>点击“设置”开始：未检查或记录任何内容。</translation>
    </message>
    <message>
        <source>Set &amp;up &gt;</source>
        <translation>设置(&amp;U) &gt;</translation>
    </message>
    <message>
        <source>Nothing could be checked this time, so nothing was recorded.</source>
        <translation>这次什么都无法检查，因此没有记录任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n check(s) failed: something broke since the setup last worked.</source>
        <translation>
            <numerusform>%n 项检查失败：自上次正常工作以来出现了故障。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Everything works; %n thing(s) changed since the last good state.</source>
        <translation>
            <numerusform>一切正常；自上次正常状态以来有 %n 处变化。</numerusform>
        </translation>
    </message>
    <message>
        <source>Everything works as it did.</source>
        <translation>一切如常。</translation>
    </message>
    <message>
        <source>Compared with the last good state, recorded %1.</source>
        <translation>已与 %1 记录的上次正常状态进行比较。</translation>
    </message>
    <message>
        <source>No good state was recorded yet: the environments were checked against what the wizard made.</source>
        <translation>尚未记录正常状态：已根据向导创建时的情况检查环境。</translation>
    </message>
    <message>
        <source>This state is now the last good one.</source>
        <translation>当前状态已记录为上次正常状态。</translation>
    </message>
    <message>
        <source>as before</source>
        <translation>与之前相同</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已变化</translation>
    </message>
    <message>
        <source>broken</source>
        <translation>已损坏</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>not installed</source>
        <comment>a framework, as a check found it</comment>
        <translation>未安装</translation>
    </message>
    <message>
        <source>fails</source>
        <comment>importing a framework, as a check found it</comment>
        <translation>失败</translation>
    </message>
    <message>
        <source>does not run</source>
        <comment>an environment&apos;s Python, as a check found it</comment>
        <translation>无法运行</translation>
    </message>
    <message>
        <source>runs</source>
        <comment>an environment&apos;s Python, as a check found it</comment>
        <translation>可以运行</translation>
    </message>
    <message>
        <source>on PATH</source>
        <comment>a folder, as a check found it</comment>
        <translation>在 PATH 中</translation>
    </message>
    <message>
        <source>not on PATH</source>
        <comment>a folder, as a check found it</comment>
        <translation>不在 PATH 中</translation>
    </message>
    <message>
        <source>missing</source>
        <comment>a constraints file, as a check found it</comment>
        <translation>缺失</translation>
    </message>
    <message>
        <source>no pin</source>
        <comment>a constraints file without the framework&apos;s line</comment>
        <translation>未固定</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Set up your GPU for deep learning</source>
        <translation>为深度学习设置您的 GPU</translation>
    </message>
    <message>
        <source>From “I have a GPU” to “my framework trains on it”, with proof.</source>
        <translation>从“我有一块 GPU”到“我的框架能在它上面训练”，全程有据可证。</translation>
    </message>
    <message>
        <source>Look at this machine: the GPU (NVIDIA, AMD, Intel or Apple), its driver, CUDA and cuDNN on disk, and Python.</source>
        <translation>检查本机：GPU（NVIDIA、AMD、Intel 或 Apple）、其驱动程序、磁盘上的 CUDA 和 cuDNN，以及 Python。</translation>
    </message>
    <message>
        <source>Recommend a PyTorch or TensorFlow setup that fits, and explain every “no”.</source>
        <translation>推荐合适的 PyTorch 或 TensorFlow 配置，并解释每一个“不行”的原因。</translation>
    </message>
    <message>
        <source>Create an environment with the right build, and fix PATH where it is needed.</source>
        <translation>创建使用正确构建版本的环境，并在需要时修复 PATH。</translation>
    </message>
    <message>
        <source>Train a small network on the GPU and on the CPU, and show the numbers.</source>
        <translation>在 GPU 和 CPU 上分别训练一个小型网络，并显示测量数据。</translation>
    </message>
    <message>
        <source>This wizard will:</source>
        <translation>此向导将：</translation>
    </message>
    <message>
        <source>What the wizard will do</source>
        <translation>向导将执行的操作</translation>
    </message>
    <message>
        <source>Nothing on this machine changes until you have seen exactly what will change and agreed. Every change can be undone.</source>
        <translation>在您看到具体更改内容并同意之前，本机不会发生任何更改。所有更改均可撤销。</translation>
    </message>
    <message>
        <source>You are looking at a saved system report: the wizard only shows what it would do. Nothing on this machine will change.</source>
        <translation>您正在查看已保存的系统报告：向导只会显示它将执行的操作。本机不会发生任何更改。</translation>
    </message>
</context>
<context>
    <name>WheelFolderStatus</name>
    <message>
        <source>What the folder of wheels holds</source>
        <extracomment>How long the status waits after the last change (typing a path) before checking.</extracomment>
        <translation>wheel 文件夹的内容</translation>
    </message>
    <message>
        <source>Command that downloads what the folder lacks</source>
        <translation>下载文件夹所缺内容的命令</translation>
    </message>
    <message>
        <source>Cop&amp;y</source>
        <translation>复制(&amp;Y)</translation>
    </message>
    <message>
        <source>Copy the download command</source>
        <translation>复制下载命令</translation>
    </message>
    <message>
        <source>Chec&amp;k again</source>
        <translation>再次检查(&amp;K)</translation>
    </message>
    <message>
        <source>Check the folder again, for example after adding wheels to it.</source>
        <translation>再次检查该文件夹，例如在向其中添加 wheel 文件之后。</translation>
    </message>
    <message>
        <source>The folder could not be checked (%1); the install will say what is missing.</source>
        <translation>无法检查该文件夹（%1）；安装过程会提示缺少哪些内容。</translation>
    </message>
    <message>
        <source>Checking the folder against the plan…</source>
        <translation>正在对照方案检查该文件夹…</translation>
    </message>
    <message>
        <source>The folder holds %1 %2, which can be installed instead.</source>
        <translation>该文件夹包含 %1 %2,可以改为安装它。</translation>
    </message>
    <message>
        <source>&amp;Use %1 %2</source>
        <translation>使用 %1 %2(&amp;U)</translation>
    </message>
    <message>
        <source>Or fetch what is missing into the folder.</source>
        <translation>或将缺少的内容下载到该文件夹。</translation>
    </message>
    <message>
        <source>Fetch what is missing into the folder.</source>
        <translation>将缺少的内容下载到该文件夹。</translation>
    </message>
</context>
<context>
    <name>WindowsStepQuestion</name>
    <message>
        <source>Make WSL ready</source>
        <translation>准备 WSL</translation>
    </message>
    <message>
        <source>Run %1 as administrator now?</source>
        <translation>现在以管理员身份运行 %1 吗？</translation>
    </message>
    <message>
        <source>Windows asks for the administrator first. It downloads WSL and %1; %1 then asks for a Linux user name and password in its window, and Windows may ask to restart: then open the wizard again and install the same plan.</source>
        <translation>Windows 会先请求管理员权限。它会下载 WSL 和 %1；随后 %1 会在其窗口中要求设置 Linux 用户名和密码，Windows 也可能要求重启：之后请再次打开向导并安装同一方案。</translation>
    </message>
    <message>
        <source>Run %1 now?</source>
        <translation>现在运行 %1 吗？</translation>
    </message>
    <message>
        <source>It runs in a window of its own: answer it there if it asks (a new distribution asks for a Linux user name and password). Then the environment is made.</source>
        <translation>它会在自己的窗口中运行：如有提问请在那里作答（新的发行版会要求设置 Linux 用户名和密码）。然后创建环境。</translation>
    </message>
    <message>
        <source>&amp;Run it</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Not now</source>
        <translation>暂不(&amp;N)</translation>
    </message>
</context>
<context>
    <name>apply_stages</name>
    <message>
        <source>Detecting this machine</source>
        <extracomment>The stages of a run, in their order. How a run ended: set up (``ok``), shown without changing anything (``preview``), the check failed (``problem``), a step failed and this run&apos;s changes were undone (``rolled_back``), or stopped by the person (``cancelled``). The translation context of :data:`STAGE_WORDS`. Each stage in a few words.</extracomment>
        <translation>正在检测本机</translation>
    </message>
    <message>
        <source>Planning the setup</source>
        <translation>正在规划配置</translation>
    </message>
    <message>
        <source>Asking the package indexes</source>
        <translation>正在查询软件包索引</translation>
    </message>
    <message>
        <source>Changing PATH</source>
        <translation>正在更改 PATH</translation>
    </message>
    <message>
        <source>Making the environment</source>
        <translation>正在创建环境</translation>
    </message>
    <message>
        <source>Running the live test</source>
        <translation>正在运行实时测试</translation>
    </message>
</context>
<context>
    <name>env_phases</name>
    <message>
        <source>Checking the environment&apos;s folder…</source>
        <extracomment>The steps of a creation, in the order they can run. ``check`` is before the first step (an interrupted creation settled, the folder checked again); ``dlls`` only on Windows with NVIDIA&apos;s CUDA wheels; ``rollback`` after a failure or a cancel. The translation context of :data:`PHASE_WORDS`. Each phase in a few words. ``{module}`` is the framework&apos;s module (``torch``).</extracomment>
        <translation>正在检查环境的文件夹…</translation>
    </message>
    <message>
        <source>Moving the existing environment aside…</source>
        <translation>正在将现有环境移到一旁…</translation>
    </message>
    <message>
        <source>Creating the environment…</source>
        <translation>正在创建环境…</translation>
    </message>
    <message>
        <source>Adding pip…</source>
        <translation>正在添加 pip…</translation>
    </message>
    <message>
        <source>Installing the packages…</source>
        <translation>正在安装软件包…</translation>
    </message>
    <message>
        <source>Making the NVIDIA wheels&apos; DLL folders visible…</source>
        <translation>正在使 NVIDIA wheel 的 DLL 文件夹可见…</translation>
    </message>
    <message>
        <source>Checking that {module} imports in the new environment…</source>
        <translation>正在检查 {module} 能否在新环境中导入…</translation>
    </message>
    <message>
        <source>Pinning the build so later installs cannot replace it…</source>
        <translation>正在锁定构建版本，使后续安装无法替换它…</translation>
    </message>
    <message>
        <source>Setting the environment&apos;s variables…</source>
        <translation>正在设置该环境的变量…</translation>
    </message>
    <message>
        <source>Registering the Jupyter kernel…</source>
        <translation>正在注册 Jupyter 内核…</translation>
    </message>
    <message>
        <source>Recording the environment…</source>
        <translation>正在记录环境…</translation>
    </message>
    <message>
        <source>Something went wrong: removing what was made…</source>
        <translation>出现错误：正在删除已创建的内容…</translation>
    </message>
</context>
<context>
    <name>findings</name>
    <message>
        <source>system</source>
        <comment>the PATH&apos;s scope, as in &apos;the system PATH&apos;</comment>
        <translation>系统</translation>
    </message>
    <message>
        <source>user</source>
        <comment>the PATH&apos;s scope, as in &apos;the user PATH&apos;</comment>
        <translation>用户</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found on this machine.</source>
        <translation>本机未找到 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found; the graphics hardware is: {names}.</source>
        <translation>未找到 NVIDIA GPU；图形硬件为：{names}。</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present ({names}), but no working NVIDIA driver answers.</source>
        <translation>检测到 NVIDIA GPU（{names}），但没有可正常工作的 NVIDIA 驱动程序响应。</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present ({names}), but it is driven by the open-source &apos;nouveau&apos; driver, which has no CUDA.</source>
        <translation>检测到 NVIDIA GPU（{names}），但它使用的是开源 &apos;nouveau&apos; 驱动程序，不支持 CUDA。</translation>
    </message>
    <message>
        <source>This looks like a container, and the NVIDIA driver library is not visible inside it.</source>
        <translation>这似乎是一个容器，而容器内看不到 NVIDIA 驱动程序库。</translation>
    </message>
    <message>
        <source>Start the container with GPU access (&apos;docker run --gpus all ...&apos;, which needs the NVIDIA Container Toolkit on the host), and check that &apos;nvidia-smi&apos; works on the host.</source>
        <translation>启动容器时请启用 GPU 访问（&apos;docker run --gpus all ...&apos;，需要主机上装有 NVIDIA Container Toolkit），并检查主机上的 &apos;nvidia-smi&apos; 是否正常工作。</translation>
    </message>
    <message>
        <source>This is WSL 2, but no NVIDIA driver is passed through from Windows (nothing answers in /usr/lib/wsl/lib).</source>
        <translation>这是 WSL 2，但 Windows 未传入 NVIDIA 驱动程序（/usr/lib/wsl/lib 中没有任何响应）。</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present ({names}), but the NVIDIA driver does not answer.</source>
        <translation>检测到 NVIDIA GPU（{names}），但 NVIDIA 驱动程序无响应。</translation>
    </message>
    <message>
        <source>The NVIDIA driver library and the loaded kernel driver have different versions (NVML: &apos;Driver/library version mismatch&apos;).</source>
        <translation>NVIDIA 驱动程序库与已加载的内核驱动程序版本不一致（NVML：&apos;Driver/library version mismatch&apos;）。</translation>
    </message>
    <message>
        <source>This happens after a driver update without a restart. Restart the computer; if it persists, reinstall the NVIDIA driver.</source>
        <translation>这通常发生在更新驱动程序后未重启时。请重启计算机；如果问题仍然存在，请重新安装 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>The NVIDIA driver refused access to the GPU (NVML: no permission).</source>
        <translation>NVIDIA 驱动程序拒绝访问 GPU（NVML：无权限）。</translation>
    </message>
    <message>
        <source>Check that your user may open /dev/nvidia* (often the &apos;video&apos; group on Linux), or ask the machine&apos;s administrator.</source>
        <translation>请检查您的用户是否有权打开 /dev/nvidia*（在 Linux 上通常需要加入 &apos;video&apos; 组），或询问该计算机的管理员。</translation>
    </message>
    <message>
        <source>The operating system blocked access to the GPU (NVML: &apos;GPU access blocked by the operating system&apos;).</source>
        <translation>操作系统阻止了对 GPU 的访问（NVML：&apos;GPU access blocked by the operating system&apos;）。</translation>
    </message>
    <message>
        <source>In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;); where cgroup device rules apply, they must allow /dev/nvidia*.</source>
        <translation>如果在容器中，请在启动时启用 GPU 访问（&apos;docker run --gpus all ...&apos;）；如果有 cgroup 设备规则，必须允许 /dev/nvidia*。</translation>
    </message>
    <message>
        <source>WSL blocked access to the GPU (NVML: &apos;GPU access blocked by the operating system&apos;).</source>
        <translation>WSL 阻止了对 GPU 的访问（NVML：&apos;GPU access blocked by the operating system&apos;）。</translation>
    </message>
    <message>
        <source>This happens when a Linux NVIDIA driver package (such as nvidia-utils-*) was installed inside WSL (microsoft/WSL#9166). Remove it, then run &apos;wsl --shutdown&apos; in Windows: the Windows driver provides the GPU to WSL 2.</source>
        <translation>在 WSL 中安装了 Linux NVIDIA 驱动程序包（如 nvidia-utils-*）时会出现此问题（microsoft/WSL#9166）。请将其删除，然后在 Windows 中运行 &apos;wsl --shutdown&apos;：WSL 2 的 GPU 由 Windows 驱动程序提供。</translation>
    </message>
    <message>
        <source>The NVIDIA management library could not be used: {detail}.</source>
        <translation>无法使用 NVIDIA 管理库：{detail}。</translation>
    </message>
    <message>
        <source>GPU {index} did not answer the driver ({reason}).</source>
        <translation>GPU {index} 未响应驱动程序（{reason}）。</translation>
    </message>
    <message>
        <source>The other GPUs are reported normally. A GPU that is &apos;lost&apos; usually needs a restart of the machine; if it recurs, check its power cables, cooling and the system log (Xid errors), and contact the machine&apos;s administrator.</source>
        <translation>其他 GPU 报告正常。处于 &apos;lost&apos; 状态的 GPU 通常需要重启计算机；如果反复出现，请检查其电源线、散热和系统日志（Xid 错误），并联系该计算机的管理员。</translation>
    </message>
    <message>
        <source>Driver {driver} did not report the highest CUDA version it supports (it predates that NVML query).</source>
        <translation>驱动程序 {driver} 未报告其支持的最高 CUDA 版本（该驱动程序早于此 NVML 查询功能）。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver. Current framework builds use CUDA 11 or newer, which needs driver 450.80.02 or newer on Linux and 452.39 or newer on Windows (NVIDIA CUDA Toolkit release notes, minor-version compatibility table).</source>
        <translation>请更新 NVIDIA 驱动程序。当前的框架构建版本使用 CUDA 11 或更高版本，在 Linux 上需要驱动程序 450.80.02 或更高版本，在 Windows 上需要 452.39 或更高版本（见 NVIDIA CUDA Toolkit 发行说明中的次版本兼容性表）。</translation>
    </message>
    <message>
        <source>macOS has no CUDA: neither PyTorch nor TensorFlow ships CUDA builds for it.</source>
        <translation>macOS 不支持 CUDA：PyTorch 和 TensorFlow 都不为其提供 CUDA 版本。</translation>
    </message>
    <message>
        <source>This is WSL 1, which cannot use the GPU.</source>
        <translation>这是 WSL 1，无法使用 GPU。</translation>
    </message>
    <message>
        <source>Convert the distribution to WSL 2: in Windows, run &apos;wsl --set-version &lt;distro&gt; 2&apos; (list distributions with &apos;wsl -l -v&apos;).</source>
        <translation>请将该发行版转换为 WSL 2：在 Windows 中运行 &apos;wsl --set-version &lt;distro&gt; 2&apos;（可用 &apos;wsl -l -v&apos; 列出发行版）。</translation>
    </message>
    <message>
        <source>A Linux NVIDIA driver library is installed inside WSL ({path}).</source>
        <translation>WSL 中安装了 Linux NVIDIA 驱动程序库（{path}）。</translation>
    </message>
    <message>
        <source>Inside WSL 2 the Windows driver provides the GPU; a Linux driver installed in the distribution can shadow it and break GPU access. Remove the Linux driver packages (keep the CUDA toolkit if you need it) (NVIDIA CUDA on WSL User Guide).</source>
        <translation>在 WSL 2 中，GPU 由 Windows 驱动程序提供；在发行版中安装的 Linux 驱动程序可能会遮蔽它，导致无法访问 GPU。请删除 Linux 驱动程序包（如有需要可保留 CUDA 工具包）（见 NVIDIA CUDA on WSL 用户指南）。</translation>
    </message>
    <message>
        <source>The &apos;tensorflow-gpu&apos; package was removed; &apos;tensorflow&apos; is the GPU package.</source>
        <translation>&apos;tensorflow-gpu&apos; 包已被移除；&apos;tensorflow&apos; 就是 GPU 包。</translation>
    </message>
    <message>
        <source>Since December 2022 &apos;pip install tensorflow-gpu&apos; gets an empty package that fails on install. The plan installs &apos;tensorflow&apos; instead (the same package since TensorFlow 2.1).</source>
        <translation>自 2022 年 12 月起，&apos;pip install tensorflow-gpu&apos; 获取的是一个安装时即会失败的空包。方案将改为安装 &apos;tensorflow&apos;（自 TensorFlow 2.1 起两者就是同一个包）。</translation>
    </message>
    <message>
        <source>TensorFlow {version} has no GPU support on native Windows: {last} was the last release with it.</source>
        <translation>TensorFlow {version} 在原生 Windows 上不支持 GPU：{last} 是最后一个支持 GPU 的版本。</translation>
    </message>
    <message>
        <source>Use TensorFlow {last} on Windows (CUDA {last_cuda}, cuDNN {last_cudnn}), or TensorFlow {version} inside WSL 2, which uses this GPU through the Windows driver, or the CPU build.</source>
        <translation>请在 Windows 上使用 TensorFlow {last}（CUDA {last_cuda}，cuDNN {last_cudnn}），或在 WSL 2 中使用 TensorFlow {version}（WSL 2 通过 Windows 驱动程序使用此 GPU），或使用 CPU 版本。</translation>
    </message>
    <message>
        <source>NVIDIA driver {driver} is older than the {min_driver} that {build} needs.</source>
        <translation>NVIDIA 驱动程序 {driver} 低于 {build} 所需的 {min_driver}。</translation>
    </message>
    <message>
        <source>No NVIDIA driver answers, so no GPU build can run yet.</source>
        <translation>没有 NVIDIA 驱动程序响应，因此目前无法运行任何 GPU 版本。</translation>
    </message>
    <message>
        <source>{framework} {version} has no build for {gpu} (compute capability {capability}): its GPU builds carry code for {architectures}.</source>
        <translation>{framework} {version} 没有适用于 {gpu}（计算能力 {capability}）的版本：其 GPU 版本只包含针对 {architectures} 的代码。</translation>
    </message>
    <message>
        <source>Installing it anyway ends in &apos;no kernel image is available for execution on the device&apos;. {instead}</source>
        <translation>强行安装会导致 &apos;no kernel image is available for execution on the device&apos; 错误。{instead}</translation>
    </message>
    <message>
        <source>{framework} {version} bundles {library} {library_version}, which no longer supports {gpu} (compute capability {capability}; NVIDIA&apos;s support matrix lists {minimum} and newer).</source>
        <translation>{framework} {version} 自带 {library} {library_version}，它已不再支持 {gpu}（计算能力 {capability}；NVIDIA 支持矩阵列出 {minimum} 及更新）。</translation>
    </message>
    <message>
        <source>Its kernels would load, but {library} calls fail on this GPU. {instead}</source>
        <translation>其内核可以加载，但 {library} 调用会在这块 GPU 上失败。{instead}</translation>
    </message>
    <message>
        <source>{framework} {version} is published ({index}), but its build matrix is not in the compatibility data yet.</source>
        <translation>{framework} {version} 已发布（{index}），但其构建矩阵尚未收入兼容性数据。</translation>
    </message>
    <message>
        <source>Which GPUs, drivers and Pythons its builds support is not verified, so the plan stays on {plan}. The data is updated weekly: run &apos;gpuwizard recommend --refresh&apos; later.</source>
        <translation>其构建支持哪些 GPU、驱动和 Python 尚未验证，因此方案仍为 {plan}。数据每周更新：稍后运行 &apos;gpuwizard recommend --refresh&apos;。</translation>
    </message>
    <message>
        <source>Which GPUs, drivers and Pythons its builds support is not verified, so this is the newest verified plan instead: {plan}. Run &apos;gpuwizard recommend --refresh&apos; later for {version}.</source>
        <translation>其构建支持哪些 GPU、驱动和 Python 尚未验证，因此改为最新的已验证方案：{plan}。稍后运行 &apos;gpuwizard recommend --refresh&apos; 以获取 {version}。</translation>
    </message>
    <message>
        <source>{framework} {version} is newer than the compatibility data knows, and the package index could not be asked whether it exists.</source>
        <translation>{framework} {version} 比兼容性数据所知的更新，且无法向软件包索引确认它是否存在。</translation>
    </message>
    <message>
        <source>This is the newest verified plan instead: {plan}. With network, &apos;gpuwizard recommend --refresh&apos; checks the index and fetches newer data.</source>
        <translation>改为最新的已验证方案：{plan}。联网时，&apos;gpuwizard recommend --refresh&apos; 会查询索引并获取更新的数据。</translation>
    </message>
    <message>
        <source>{build} has no code for {gpu} (compute capability {capability}); the plan uses the other GPUs.</source>
        <translation>{build} 不包含适用于 {gpu}（计算能力 {capability}）的代码；方案将使用其他 GPU。</translation>
    </message>
    <message>
        <source>Hide that GPU from the framework (CUDA_VISIBLE_DEVICES={visible}), or it may fail with &apos;no kernel image is available&apos; when code lands on it.</source>
        <translation>请对框架隐藏该 GPU（CUDA_VISIBLE_DEVICES={visible}），否则当代码被分配到该 GPU 上时，可能出现 &apos;no kernel image is available&apos; 错误。</translation>
    </message>
    <message>
        <source>The compute capability of {gpu} is not known, so build support was not checked.</source>
        <translation>{gpu} 的计算能力未知，因此未检查构建版本是否支持它。</translation>
    </message>
    <message>
        <source>Run the wizard on the machine itself (with the NVIDIA driver installed) for a checked recommendation; the live test will show whether the build runs.</source>
        <translation>请在原计算机上（已安装 NVIDIA 驱动程序）运行向导，以获得经过检查的推荐；实时测试会显示该构建版本能否运行。</translation>
    </message>
    <message>
        <source>{build} carries no machine code for {gpu} (compute capability {capability}); it runs through PTX the driver compiles at first use.</source>
        <translation>{build} 不包含适用于 {gpu}（计算能力 {capability}）的机器码；它通过 PTX 运行，由驱动程序在首次使用时编译。</translation>
    </message>
    <message>
        <source>The first run is slower (compiling can take minutes; the result is cached). The live test checks that it works.</source>
        <translation>首次运行较慢（编译可能需要几分钟；结果会被缓存）。实时测试会检查它能否正常工作。</translation>
    </message>
    <message>
        <source>{framework} {version} supports Python {python_range}, not Python {python}.</source>
        <translation>{framework} {version} 支持 Python {python_range}，不支持 Python {python}。</translation>
    </message>
    <message>
        <source>pip would answer &apos;No matching distribution found&apos;. The plan uses Python {chosen} instead, in its own environment; your other Pythons stay as they are.</source>
        <translation>pip 会报告 &apos;No matching distribution found&apos;。方案将改用 Python {chosen}，并放在独立的环境中；您的其他 Python 保持不变。</translation>
    </message>
    <message>
        <source>{build} brings its own CUDA {cuda} and cuDNN: no CUDA toolkit is needed, only the driver.</source>
        <translation>{build} 自带 CUDA {cuda} 和 cuDNN：无需 CUDA 工具包，只需驱动程序。</translation>
    </message>
    <message>
        <source>Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed. Toolkits already on disk are not used by it.</source>
        <translation>不要为它安装 CUDA 工具包或 cuDNN，也无需更改 PATH。它不会使用磁盘上已有的工具包。</translation>
    </message>
    <message>
        <source>conda-forge supplies CUDA {cuda} and cuDNN {cudnn} inside the environment for {build}: no system CUDA toolkit is needed.</source>
        <translation>conda-forge 会在环境中为 {build} 提供 CUDA {cuda} 和 cuDNN {cudnn}：无需系统 CUDA 工具包。</translation>
    </message>
    <message>
        <source>Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed: activating the environment makes its DLLs visible.</source>
        <translation>不要为它安装 CUDA 工具包或 cuDNN，也无需更改 PATH：激活环境即可使其 DLL 可见。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s CUDA {cuda_wheels} and cuDNN {cudnn_wheels} wheels bring the DLLs {build} loads into the environment: no CUDA toolkit or cuDNN download is needed, only the driver.</source>
        <translation>NVIDIA 的 CUDA {cuda_wheels} 和 cuDNN {cudnn_wheels} wheel 会将 {build} 所加载的 DLL 带入环境：无需 CUDA 工具包，也无需下载 cuDNN，只需驱动程序。</translation>
    </message>
    <message>
        <source>Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed: the environment&apos;s Python finds the DLLs however it is started, activated or not.</source>
        <translation>不要为它安装 CUDA 工具包或 cuDNN，也无需更改 PATH：无论以何种方式启动、环境是否激活，环境的 Python 都能找到这些 DLL。</translation>
    </message>
    <message>
        <source>{build} needs a CUDA {cuda} toolkit on the system, and none was found.</source>
        <translation>{build} 需要系统上装有 CUDA {cuda} 工具包，但未找到。</translation>
    </message>
    <message>
        <source>Install CUDA {cuda} from NVIDIA&apos;s CUDA Toolkit Archive (https://developer.nvidia.com/cuda-toolkit-archive), or choose conda, which supplies CUDA and cuDNN inside the environment.</source>
        <translation>请从 NVIDIA 的 CUDA Toolkit Archive（https://developer.nvidia.com/cuda-toolkit-archive）安装 CUDA {cuda}，或选择 conda，它会在环境中提供 CUDA 和 cuDNN。</translation>
    </message>
    <message>
        <source>{build} needs cuDNN {cudnn} on the system, and none was found.</source>
        <translation>{build} 需要系统上装有 cuDNN {cudnn}，但未找到。</translation>
    </message>
    <message>
        <source>Download cuDNN {cudnn} for CUDA {cuda} from NVIDIA&apos;s cuDNN archive (https://developer.nvidia.com/rdp/cudnn-archive) and unzip it, or choose conda, which supplies it inside the environment.</source>
        <translation>请从 NVIDIA 的 cuDNN 存档（https://developer.nvidia.com/rdp/cudnn-archive）下载适用于 CUDA {cuda} 的 cuDNN {cudnn} 并解压，或选择 conda，它会在环境中提供 cuDNN。</translation>
    </message>
    <message>
        <source>Several CUDA versions are on PATH: {versions}. The first one, {first}, wins.</source>
        <translation>PATH 中有多个 CUDA 版本：{versions}。第一个（{first}）生效。</translation>
    </message>
    <message>
        <source>Programs that load CUDA from PATH (TensorFlow 2.10 and older on Windows, nvcc) get {first}. Keep only the version your framework needs on PATH, or let the wizard put the right one first (it keeps a backup and can undo).</source>
        <translation>从 PATH 加载 CUDA 的程序（Windows 上的 TensorFlow 2.10 及更早版本、nvcc）会使用 {first}。请在 PATH 中只保留框架所需的版本，或让向导将正确的版本排在最前（它会保留备份，并可撤销）。</translation>
    </message>
    <message>
        <source>CUDA_PATH points to CUDA {cuda_path_version}, but PATH reaches CUDA {first} first.</source>
        <translation>CUDA_PATH 指向 CUDA {cuda_path_version}，但 PATH 中最先找到的是 CUDA {first}。</translation>
    </message>
    <message>
        <source>Build tools follow CUDA_PATH and programs follow PATH, so they can use different CUDA versions. Make them agree if you build CUDA code.</source>
        <translation>构建工具依据 CUDA_PATH，程序则依据 PATH，因此两者可能使用不同的 CUDA 版本。如果您要编译 CUDA 代码，请使两者一致。</translation>
    </message>
    <message>
        <source>The Python at {executable} is the Microsoft Store build.</source>
        <translation>位于 {executable} 的 Python 是 Microsoft Store 版本。</translation>
    </message>
    <message>
        <source>The Store build redirects some folders and is known to break DLL loading for CUDA (TensorFlow issues #48868, #61438). Let the wizard create the environment with a python.org or uv-managed Python instead.</source>
        <translation>Store 版本会重定向某些文件夹，已知会导致 CUDA 的 DLL 加载失败（TensorFlow issue #48868、#61438）。请让向导改用 python.org 或 uv 管理的 Python 创建环境。</translation>
    </message>
    <message>
        <source>The Python at {executable} is a 32-bit build.</source>
        <translation>位于 {executable} 的 Python 是 32 位版本。</translation>
    </message>
    <message>
        <source>PyTorch and TensorFlow publish 64-bit packages only, so pip reports &apos;No matching distribution&apos;. Use a 64-bit Python; the wizard can provide one.</source>
        <translation>PyTorch 和 TensorFlow 只发布 64 位软件包，因此 pip 会报告 &apos;No matching distribution&apos;。请使用 64 位 Python；向导可以提供一个。</translation>
    </message>
    <message>
        <source>No Python interpreter was found on PATH.</source>
        <translation>PATH 中未找到 Python 解释器。</translation>
    </message>
    <message>
        <source>That is fine: the wizard can create the environment with a Python that uv downloads, or with conda.</source>
        <translation>这没有关系：向导可以使用 uv 下载的 Python 或 conda 创建环境。</translation>
    </message>
    <message>
        <source>Part of the detection failed: {step} ({error}).</source>
        <translation>部分检测失败：{step}（{error}）。</translation>
    </message>
    <message>
        <source>The rest of the report is still right; only this part is missing. Please attach the output of &apos;gpuwizard detect --json&apos; to a bug report.</source>
        <translation>报告的其余部分仍然正确，只是缺少这一部分。请在错误报告中附上 &apos;gpuwizard detect --json&apos; 的输出。</translation>
    </message>
    <message>
        <source>Windows long-path support is off (LongPathsEnabled is not 1).</source>
        <translation>Windows 长路径支持已关闭（LongPathsEnabled 不为 1）。</translation>
    </message>
    <message>
        <source>Installing TensorFlow can fail with &apos;No such file or directory&apos; on deep paths. Either enable long paths (an administrator sets HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled to 1, as the TensorFlow install guide says), or keep the environment in a short folder such as C:\envs.</source>
        <translation>安装 TensorFlow 时可能因路径过深而出现 &apos;No such file or directory&apos; 错误。请启用长路径（由管理员将 HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled 设为 1，如 TensorFlow 安装指南所述），或将环境放在较短的文件夹中，如 C:\envs。</translation>
    </message>
    <message>
        <source>The {scope} PATH is stored as REG_SZ but holds %VARIABLE% references: {variables}.</source>
        <translation>{scope} PATH 以 REG_SZ 类型存储，但包含 %VARIABLE% 引用：{variables}。</translation>
    </message>
    <message>
        <source>Windows expands %VARIABLES% only in REG_EXPAND_SZ values, so these entries reach programs as literal text and their folders are never searched. Repair it: &apos;gpuwizard path repair --scope {scope}&apos; rewrites the same value as REG_EXPAND_SZ (journaled; &apos;gpuwizard path undo&apos; reverts it).</source>
        <translation>Windows 仅在 REG_EXPAND_SZ 值中展开 %VARIABLES%，因此这些条目会以字面文本传给程序，其文件夹永远不会被搜索。修复方法：&apos;gpuwizard path repair --scope {scope}&apos; 会将同一个值改写为 REG_EXPAND_SZ（记入日志；&apos;gpuwizard path undo&apos; 可还原）。</translation>
    </message>
    <message>
        <source>The system PATH already holds CUDA {other_versions}, and Windows puts the system PATH before the user PATH, so programs find that CUDA before {version}.</source>
        <translation>系统 PATH 中已有 CUDA {other_versions}，而 Windows 会将系统 PATH 排在用户 PATH 之前，因此程序会先找到该 CUDA，而不是 {version}。</translation>
    </message>
    <message>
        <source>DLLs with the same name (cuDNN&apos;s, for one) load from the first folder on PATH. Add the folders to the system PATH instead (--scope system, with the administrator&apos;s consent), or remove the other version from the system PATH.</source>
        <translation>同名 DLL（例如 cuDNN 的 DLL）会从 PATH 中第一个包含它的文件夹加载。请改为将这些文件夹添加到系统 PATH（--scope system，需经管理员同意），或从系统 PATH 中删除其他版本。</translation>
    </message>
    <message>
        <source>The {scope} PATH names folders that do not exist: {entries}.</source>
        <translation>{scope} PATH 中列出了不存在的文件夹：{entries}。</translation>
    </message>
    <message>
        <source>They do no harm but make PATH longer; software that was uninstalled often leaves them behind. &apos;gpuwizard path remove&apos; removes them (with undo).</source>
        <translation>它们没有危害，但会使 PATH 变长；已卸载的软件常会留下这类条目。&apos;gpuwizard path remove&apos; 可删除它们（可撤销）。</translation>
    </message>
    <message>
        <source>The {scope} PATH names some folders more than once: {entries}.</source>
        <translation>{scope} PATH 中有文件夹重复出现：{entries}。</translation>
    </message>
    <message>
        <source>Only the first one counts. Duplicates make PATH longer, and it cannot grow past 32,767 characters.</source>
        <translation>只有第一个有效。重复项会使 PATH 变长，而 PATH 的长度不能超过 32,767 个字符。</translation>
    </message>
    <message>
        <source>Programs that are already running keep the PATH they started with.</source>
        <translation>已在运行的程序会继续使用其启动时的 PATH。</translation>
    </message>
    <message>
        <source>Windows told Explorer about the change, so programs started from now on see it. Close and reopen terminals, VS Code, PyCharm, Jupyter and Anaconda Prompt that are open now: {programs}.</source>
        <translation>Windows 已将此更改通知资源管理器，因此从现在起启动的程序都能看到它。请关闭并重新打开当前已打开的终端、VS Code、PyCharm、Jupyter 和 Anaconda Prompt：{programs}。</translation>
    </message>
    <message>
        <source>No TensorFlow build uses this GPU; the CPU build works. Ask the wizard for a PyTorch plan: it says whether PyTorch uses this GPU.</source>
        <translation>没有任何 TensorFlow 构建版本使用此 GPU；CPU 版本可以运行。请向向导索取 PyTorch 方案：它会说明 PyTorch 是否使用此 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s own packages have no build for this GPU. {package} is its vendor&apos;s, and the wizard does not plan it: it comes from outside the package indexes the wizard installs from, or without a table of the TensorFlow releases it fits. Install it by hand following the vendor&apos;s guide, or ask the wizard for a PyTorch plan: it says whether PyTorch uses this GPU.</source>
        <translation>TensorFlow 自己的软件包没有适用于此 GPU 的构建版本。{package} 由厂商提供，向导不会为其制定方案：它来自向导安装所用的软件包索引之外，或者没有与之匹配的 TensorFlow 版本表。请按照厂商指南手动安装，或向向导索取 PyTorch 方案：它会说明 PyTorch 是否使用此 GPU。</translation>
    </message>
    <message>
        <source>PyTorch {first} and newer use the Apple GPU only on macOS {minimum}; this Mac has {macos}, so the plan is PyTorch {version} on the Apple GPU.</source>
        <translation>PyTorch {first} 及更新版本仅在 macOS {minimum} 上使用 Apple GPU；这台 Mac 是 {macos}，因此方案是在 Apple GPU 上运行 PyTorch {version}。</translation>
    </message>
    <message>
        <source>Update macOS to {minimum} or newer for the newest PyTorch releases on the GPU.</source>
        <translation>请将 macOS 更新到 {minimum} 或更新版本，以便在 GPU 上使用最新的 PyTorch 版本。</translation>
    </message>
    <message>
        <source>A library the GPU needs could not be loaded: {libraries}.</source>
        <translation>无法加载 GPU 所需的库：{libraries}。</translation>
    </message>
    <message>
        <source>Frameworks load CUDA and cuDNN from their own packages or from the library search path (PATH on Windows, LD_LIBRARY_PATH on Linux). Install the CUDA and cuDNN versions your framework build expects and put their folders on that path, or use an environment that brings its own copies (PyTorch wheels, &apos;tensorflow[and-cuda]&apos; on Linux, conda). If this machine has no NVIDIA GPU, the framework runs on the CPU and this can be ignored.</source>
        <translation>框架从自身的软件包或库搜索路径（Windows 上为 PATH，Linux 上为 LD_LIBRARY_PATH）加载 CUDA 和 cuDNN。请安装框架构建版本所需的 CUDA 和 cuDNN 版本，并将其文件夹加入该路径；或使用自带这些库的环境（PyTorch wheel、Linux 上的 &apos;tensorflow[and-cuda]&apos;、conda）。如果本机没有 NVIDIA GPU，框架会在 CPU 上运行，可忽略此问题。</translation>
    </message>
    <message>
        <source>A library the GPU needs could not be loaded: {libraries} (part of {components}).</source>
        <translation>无法加载 GPU 所需的库：{libraries}（属于 {components}）。</translation>
    </message>
    <message>
        <source>Install {components} as your framework build expects and put its folder on the library search path (the bin folder on PATH on Windows, LD_LIBRARY_PATH on Linux), or use an environment that brings its own copies (PyTorch wheels, &apos;tensorflow[and-cuda]&apos; on Linux, conda). TensorFlow 2.10, the last with GPU support on native Windows, needs CUDA 11.2 and cuDNN 8.1. If this machine has no NVIDIA GPU, the framework runs on the CPU and this can be ignored.</source>
        <translation>请按框架构建版本的要求安装 {components}，并将其文件夹加入库搜索路径（Windows 上将 bin 文件夹加入 PATH，Linux 上为 LD_LIBRARY_PATH）；或使用自带这些库的环境（PyTorch wheel、Linux 上的 &apos;tensorflow[and-cuda]&apos;、conda）。TensorFlow 2.10 是原生 Windows 上最后一个支持 GPU 的版本，需要 CUDA 11.2 和 cuDNN 8.1。如果本机没有 NVIDIA GPU，框架会在 CPU 上运行，可忽略此问题。</translation>
    </message>
    <message>
        <source>The NVIDIA driver library could not be loaded ({libraries}): no NVIDIA driver is visible here.</source>
        <translation>无法加载 NVIDIA 驱动程序库（{libraries}）：此处看不到 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>TensorFlow could not load all its GPU libraries, so it skipped the GPU and runs on the CPU.</source>
        <translation>TensorFlow 无法加载全部 GPU 库，因此跳过了 GPU，改在 CPU 上运行。</translation>
    </message>
    <message>
        <source>On Linux, TensorFlow 2.14 and newer install the CUDA libraries with pip: &apos;pip install tensorflow[and-cuda]&apos; (and LD_LIBRARY_PATH should not point to another CUDA). Older releases need the CUDA and cuDNN versions listed for them in TensorFlow&apos;s tested build configurations. The lines above this message name the missing libraries.</source>
        <translation>在 Linux 上，TensorFlow 2.14 及更高版本通过 pip 安装 CUDA 库：&apos;pip install tensorflow[and-cuda]&apos;（且 LD_LIBRARY_PATH 不应指向其他 CUDA）。更早的版本需要 TensorFlow 经过测试的构建配置中为其列出的 CUDA 和 cuDNN 版本。此消息上方的几行列出了缺失的库。</translation>
    </message>
    <message>
        <source>On native Windows, TensorFlow 2.10 is the last release with GPU support: it needs CUDA 11.2 and cuDNN 8.1 with their bin folders on PATH (or in a conda environment: &apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;). TensorFlow 2.11 and newer use the GPU only inside WSL 2.</source>
        <translation>在原生 Windows 上，TensorFlow 2.10 是最后一个支持 GPU 的版本：它需要 CUDA 11.2 和 cuDNN 8.1，并将其 bin 文件夹加入 PATH（或使用 conda 环境：&apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;）。TensorFlow 2.11 及更高版本只能在 WSL 2 中使用 GPU。</translation>
    </message>
    <message>
        <source>Uninstall torch and install a CUDA build from the index that fits your driver, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (on Windows, torch from PyPI is CPU-only). macOS has no CUDA build: on a Mac, use its GPU through the &apos;mps&apos; device instead of &apos;cuda&apos; (Apple silicon; macOS 14 or newer for PyTorch 2.10 and later). Without a GPU, run the code on the CPU instead (device &apos;cpu&apos;).</source>
        <translation>请卸载 torch，并从与你的驱动程序匹配的索引安装 CUDA 构建版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;（在 Windows 上，PyPI 的 torch 仅支持 CPU）。macOS 没有 CUDA 构建版本：在 Mac 上，请通过 &apos;mps&apos; 设备（而不是 &apos;cuda&apos;）使用其 GPU（Apple silicon；PyTorch 2.10 及更新版本需要 macOS 14 或更新版本）。没有 GPU 时，请在 CPU 上运行代码（设备 &apos;cpu&apos;）。</translation>
    </message>
    <message>
        <source>No PyTorch build for macOS uses CUDA, so installing another one will not help. Use the Mac&apos;s own GPU through the &apos;mps&apos; device instead of &apos;cuda&apos; (torch.device(&apos;mps&apos;); torch.backends.mps.is_available() tells whether it works: Apple silicon; macOS 14 or newer for PyTorch 2.10 and later), or the CPU. Many programs have an option for it (--device mps, --cpu); code that calls torch.cuda functions directly must be changed to do so.</source>
        <translation>macOS 上的 PyTorch 构建版本都不使用 CUDA，因此安装其他版本无济于事。请通过 &apos;mps&apos; 设备（而不是 &apos;cuda&apos;）使用 Mac 自己的 GPU（torch.device(&apos;mps&apos;)；torch.backends.mps.is_available() 可判断是否可用：Apple silicon；PyTorch 2.10 及更新版本需要 macOS 14 或更新版本），或使用 CPU。许多程序为此提供选项（--device mps、--cpu）；直接调用 torch.cuda 函数的代码需要修改。</translation>
    </message>
    <message>
        <source>The installed PyTorch has no Intel GPU (XPU) support (&apos;Torch not compiled with XPU enabled&apos;): it is a CPU or CUDA build.</source>
        <translation>已安装的 PyTorch 不支持 Intel GPU（XPU）（&apos;Torch not compiled with XPU enabled&apos;）：它是 CPU 或 CUDA 构建版本。</translation>
    </message>
    <message>
        <source>Install PyTorch&apos;s XPU build, for Intel Arc and Core Ultra GPUs on Linux and Windows with Intel&apos;s graphics driver: &apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos; (PyTorch&apos;s &apos;Getting Started on Intel GPU&apos;). Or run on the CPU.</source>
        <translation>请安装 PyTorch 的 XPU 构建版本，适用于装有 Intel 显卡驱动程序的 Linux 和 Windows 上的 Intel Arc 和 Core Ultra GPU：&apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos;（PyTorch 的 &apos;Getting Started on Intel GPU&apos;）。或者在 CPU 上运行。</translation>
    </message>
    <message>
        <source>The installed build has no code for this GPU (&apos;no kernel image is available for execution on the device&apos;).</source>
        <translation>已安装的构建版本不包含适用于此 GPU 的代码（&apos;no kernel image is available for execution on the device&apos;）。</translation>
    </message>
    <message>
        <source>{gpu} (CUDA capability {capability}) is not supported by the installed PyTorch build.</source>
        <translation>已安装的 PyTorch 构建版本不支持 {gpu}（CUDA 计算能力 {capability}）。</translation>
    </message>
    <message>
        <source>Install a build that includes your GPU&apos;s architecture; &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; shows it. GPUs older than Turing (compute capability below 7.5: GTX 10-series, Titan V) are only in PyTorch&apos;s CUDA 12.6 builds: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;. RTX 50-series GPUs (Blackwell, 12.0) need PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;. If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild or reinstall it for this GPU. &apos;gpuwizard diagnose LOG --system REPORT&apos; names the exact build for a machine.</source>
        <translation>请安装包含你的 GPU 架构的构建版本；&apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; 会显示该架构。早于 Turing 的 GPU（计算能力低于 7.5：GTX 10 系列、Titan V）只包含在 PyTorch 的 CUDA 12.6 构建版本中：&apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;。RTX 50 系列 GPU（Blackwell，12.0）需要来自 CUDA 12.8 或更新索引的 PyTorch 2.7 或更新版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;。如果错误来自单独构建的扩展（detectron2、mamba-ssm、flash-attn），请为此 GPU 重新构建或重新安装它。&apos;gpuwizard diagnose LOG --system REPORT&apos; 会给出适合某台机器的确切构建版本。</translation>
    </message>
    <message>
        <source>The installed build has no code for this GPU (compute capability {capability}): &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>已安装的构建版本不包含适用于此 GPU（计算能力 {capability}）的代码：&apos;no kernel image is available for execution on the device&apos;。</translation>
    </message>
    <message>
        <source>GPUs older than Turing (compute capability below 7.5: GTX 900 and 10-series, Titan V) are only in PyTorch&apos;s CUDA 12.6 builds, not in the CUDA 12.8 and newer ones: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (PyTorch 2.14 is the last release with such a build). If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild it for this GPU.</source>
        <translation>早于 Turing 的 GPU（计算能力低于 7.5：GTX 900 和 10 系列、Titan V）只包含在 PyTorch 的 CUDA 12.6 构建版本中，而不在 CUDA 12.8 及更新的构建版本中：&apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;（PyTorch 2.14 是提供此类构建版本的最后一个版本）。如果错误来自单独构建的扩展（detectron2、mamba-ssm、flash-attn），请为此 GPU 重新构建它。</translation>
    </message>
    <message>
        <source>Kepler GPUs (compute capability 3.x) are only in old PyTorch releases&apos; CUDA 11 builds, which also need a driver that serves them. &apos;gpuwizard recommend --framework pytorch&apos; on that machine (or &apos;gpuwizard diagnose LOG --system REPORT&apos;) names the newest one that fits; otherwise use the CPU build.</source>
        <translation>Kepler GPU（计算能力 3.x）只包含在旧版 PyTorch 的 CUDA 11 构建版本中，而这些构建版本还需要支持它们的驱动。在那台机器上运行 &apos;gpuwizard recommend --framework pytorch&apos;（或 &apos;gpuwizard diagnose LOG --system REPORT&apos;）会给出适用的最新构建版本；否则请使用 CPU 构建版本。</translation>
    </message>
    <message>
        <source>Every current PyTorch CUDA build (cu126, cu128 and newer) includes compute capability {capability}, so the code that failed is older or was built apart: a PyTorch from before this GPU&apos;s generation (Ampere needs 1.7.1 or newer, built for CUDA 11.0 or newer), or an extension compiled for other GPUs (detectron2, mamba-ssm, flash-attn, bitsandbytes, a custom CUDA op). Install a current PyTorch (&apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;), then rebuild the extension for this GPU, for example with TORCH_CUDA_ARCH_LIST set to {capability}.</source>
        <translation>当前所有 PyTorch CUDA 构建版本（cu126、cu128 及更新版本）都包含计算能力 {capability}，因此出错的代码要么较旧，要么是单独构建的：早于这一代 GPU 的 PyTorch（Ampere 需要 1.7.1 或更新版本，且为 CUDA 11.0 或更新版本构建），或为其他 GPU 编译的扩展（detectron2、mamba-ssm、flash-attn、bitsandbytes、自定义 CUDA 算子）。请安装当前的 PyTorch（&apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;），然后为这块 GPU 重新构建该扩展，例如将 TORCH_CUDA_ARCH_LIST 设置为 {capability}。</translation>
    </message>
    <message>
        <source>Blackwell GPUs (RTX 50-series: 12.0; B200: 10.0) need PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;, with a driver of the 570 series or newer. If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild it for this GPU.</source>
        <translation>Blackwell GPU（RTX 50 系列：12.0；B200：10.0）需要来自 CUDA 12.8 或更新索引的 PyTorch 2.7 或更新版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;，并需要 570 系列或更新的驱动。如果错误来自单独构建的扩展（detectron2、mamba-ssm、flash-attn），请为此 GPU 重新构建它。</translation>
    </message>
    <message>
        <source>Install a PyTorch build whose list of architectures includes {capability}: GPUs older than Turing are only in the CUDA 12.6 builds (.../whl/cu126), RTX 50-series GPUs only in the CUDA 12.8 and newer ones (.../whl/cu128), for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;. Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>请安装架构列表中包含 {capability} 的 PyTorch 构建版本：早于 Turing 的 GPU 只包含在 CUDA 12.6 构建版本中（.../whl/cu126），RTX 50 系列 GPU 只包含在 CUDA 12.8 及更新的构建版本中（.../whl/cu128），例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;。在此之前，GPU 任务会失败并报错 &apos;no kernel image is available for execution on the device&apos;。</translation>
    </message>
    <message>
        <source>GPUs older than Turing ({capability} is one) are only in PyTorch&apos;s CUDA 12.6 builds, not in the CUDA 12.8 and newer ones: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (PyTorch 2.14 is the last release with such a build). Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>早于 Turing 的 GPU（{capability} 即属此类）只包含在 PyTorch 的 CUDA 12.6 构建版本中，而不在 CUDA 12.8 及更新的构建版本中：&apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;（PyTorch 2.14 是提供此类构建版本的最后一个版本）。在此之前，GPU 任务会失败并报错 &apos;no kernel image is available for execution on the device&apos;。</translation>
    </message>
    <message>
        <source>Every current PyTorch CUDA build (cu126, cu128 and newer) includes {capability}: the installed one is older than this GPU&apos;s generation. Install a current build, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;, after &apos;pip uninstall torch&apos;. Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>当前所有 PyTorch CUDA 构建版本（cu126、cu128 及更新版本）都包含 {capability}：已安装的版本早于这一代 GPU。请先执行 &apos;pip uninstall torch&apos;，再安装当前的构建版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;。在此之前，GPU 上的运算会失败并提示 &apos;no kernel image is available for execution on the device&apos;。</translation>
    </message>
    <message>
        <source>Blackwell GPUs ({capability}; RTX 50-series) need PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;, with a driver of the 570 series or newer. Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>Blackwell GPU（{capability}；RTX 50 系列）需要来自 CUDA 12.8 或更新索引的 PyTorch 2.7 或更新版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;，并需要 570 系列或更新的驱动。在此之前，GPU 任务会失败并报错 &apos;no kernel image is available for execution on the device&apos;。</translation>
    </message>
    <message>
        <source>{gpu} (compute capability {capability}) is too old for the installed PyTorch.</source>
        <translation>{gpu}（计算能力 {capability}）对于已安装的 PyTorch 来说太旧。</translation>
    </message>
    <message>
        <source>PyTorch builds drop old GPU generations over time. Install an older PyTorch release that still supports compute capability {capability}, build PyTorch from source for it, or use the CPU build.</source>
        <translation>PyTorch 构建版本会逐步放弃对旧代 GPU 的支持。请安装仍支持计算能力 {capability} 的旧版 PyTorch，或针对它从源代码构建 PyTorch，或使用 CPU 版本。</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for the CUDA version of the installed framework build (&apos;CUDA driver version is insufficient&apos;).</source>
        <translation>NVIDIA 驱动程序太旧，不支持已安装框架构建版本的 CUDA 版本（&apos;CUDA driver version is insufficient&apos;）。</translation>
    </message>
    <message>
        <source>PyTorch and TensorFlow run on the CPU here: install their CPU builds (the recommendation names them). GPU training (CUDA) needs an NVIDIA GPU: on a laptop with two GPUs, check that the NVIDIA GPU is enabled in the firmware (BIOS/UEFI) settings; on a cloud VM, pick an instance type with an NVIDIA GPU.</source>
        <translation>PyTorch 和 TensorFlow 在这里使用 CPU 运行：请安装它们的 CPU 版本（推荐中已列出）。GPU 训练（CUDA）需要 NVIDIA GPU：在有两个 GPU 的笔记本电脑上，请检查固件（BIOS/UEFI）设置中是否启用了 NVIDIA GPU；在云虚拟机上，请选择带 NVIDIA GPU 的实例类型。</translation>
    </message>
    <message>
        <source>PyTorch and TensorFlow run on the CPU here: install their CPU builds (the recommendation names them). CUDA builds run only on NVIDIA GPUs: on a laptop with two GPUs, check that the NVIDIA GPU is enabled in the firmware (BIOS/UEFI) settings.</source>
        <translation>PyTorch 和 TensorFlow 在这里使用 CPU 运行：请安装它们的 CPU 版本（推荐中已列出）。CUDA 版本只能在 NVIDIA GPU 上运行：在有两个 GPU 的笔记本电脑上，请检查固件（BIOS/UEFI）设置中是否启用了 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>The GPU here is not an NVIDIA GPU: {names}.</source>
        <translation>本机的 GPU 不是 NVIDIA GPU：{names}。</translation>
    </message>
    <message>
        <source>CUDA needs NVIDIA, but PyTorch has builds for AMD GPUs (ROCm, on Linux), Intel GPUs (XPU) and Apple silicon (MPS): the recommendation checks whether one carries code for this GPU, and says why not where none does.</source>
        <translation>CUDA 需要 NVIDIA，但 PyTorch 提供了适用于 AMD GPU（ROCm，Linux 上）、Intel GPU（XPU）和 Apple 芯片（MPS）的构建版本：推荐会检查其中是否有包含此 GPU 代码的版本，如果都没有，则说明原因。</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver for your GPU from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;), then restart the computer and run the wizard again.</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 安装适用于你的 GPU 的 NVIDIA 驱动（Ubuntu 上：&apos;sudo ubuntu-drivers install&apos;），然后重启计算机并再次运行向导。</translation>
    </message>
    <message>
        <source>Install NVIDIA&apos;s driver (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;; elsewhere from https://www.nvidia.com/Download/index.aspx), which replaces nouveau, then restart the computer.</source>
        <translation>请安装 NVIDIA 的驱动（Ubuntu 上：&apos;sudo ubuntu-drivers install&apos;；其他系统从 https://www.nvidia.com/Download/index.aspx 获取），它会取代 nouveau，然后重启计算机。</translation>
    </message>
    <message>
        <source>Install or update the NVIDIA driver on Windows (not inside WSL) from https://www.nvidia.com/Download/index.aspx, then run &apos;wsl --shutdown&apos; in Windows and open WSL again. The Windows driver serves WSL 2 (NVIDIA CUDA on WSL User Guide).</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 在 Windows 上（不是在 WSL 内）安装或更新 NVIDIA 驱动，然后在 Windows 中运行 &apos;wsl --shutdown&apos; 并重新打开 WSL。WSL 2 由 Windows 驱动提供支持（NVIDIA CUDA on WSL User Guide）。</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver for your GPU from https://www.nvidia.com/Download/index.aspx (a &apos;Microsoft Basic Display Adapter&apos; means no NVIDIA driver is installed), restart Windows, and run the wizard again.</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 安装适用于你的 GPU 的 NVIDIA 驱动（显示为 &apos;Microsoft Basic Display Adapter&apos; 表示没有安装 NVIDIA 驱动），重启 Windows，然后再次运行向导。</translation>
    </message>
    <message>
        <source>Detection fell back to other sources. If &apos;nvidia-smi&apos; also fails, reinstall the NVIDIA driver from https://www.nvidia.com/Download/index.aspx.</source>
        <translation>检测改用了其他来源。如果 &apos;nvidia-smi&apos; 也失败，请从 https://www.nvidia.com/Download/index.aspx 重新安装 NVIDIA 驱动。</translation>
    </message>
    <message>
        <source>On Apple silicon, PyTorch uses the GPU through MPS (macOS 12.3 or newer; the PyTorch releases from 2.12 need macOS 14); an Intel Mac has PyTorch wheels up to 2.2 only, for the CPU.</source>
        <translation>在 Apple 芯片上，PyTorch 通过 MPS 使用 GPU（需要 macOS 12.3 或更高版本；PyTorch 2.12 起的版本需要 macOS 14）；Intel Mac 上的 PyTorch wheel 只到 2.2，且仅支持 CPU。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to {min_driver} or newer from https://www.nvidia.com/Download/index.aspx. {otherwise}</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 将 NVIDIA 驱动更新到 {min_driver} 或更新版本。{otherwise}</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver, {min_driver} or newer for {build}, from https://www.nvidia.com/Download/index.aspx, then restart the computer.</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 安装 NVIDIA 驱动（{build} 需要 {min_driver} 或更新版本），然后重启计算机。</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is in no PyTorch ROCm build: the builds carry {targets}.</source>
        <translation>{gpu}（{target}）不在任何 PyTorch ROCm 构建版本中：这些构建版本包含 {targets}。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s ROCm wheels have no code for this GPU, so the plan is the CPU build. A GPU whose target is listed would train on the GPU.</source>
        <translation>PyTorch 的 ROCm wheel 不含此 GPU 的代码，因此方案为 CPU 版本。目标在列表中的 GPU 才能在 GPU 上训练。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s ROCm wheels have no code for this GPU, so the plan is the CPU build. AMD documents HSA_OVERRIDE_GFX_VERSION={override} for this GPU (accelerators.json names where); the wizard does not set it for you: it makes the runtime treat the GPU as another target, at your own risk.</source>
        <translation>PyTorch 的 ROCm wheel 不含此 GPU 的代码，因此方案为 CPU 版本。AMD 为此 GPU 记录了 HSA_OVERRIDE_GFX_VERSION={override}（accelerators.json 注明了出处）；向导不会替你设置：它会让运行时把该 GPU 当作另一个目标，风险自负。</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is in no PyTorch ROCm build (they carry {targets}); the plan uses the other AMD GPUs.</source>
        <translation>{gpu}（{target}）不在任何 PyTorch ROCm 构建版本中（这些版本包含 {targets}）；方案使用其他 AMD GPU。</translation>
    </message>
    <message>
        <source>Hide it from PyTorch, or work may land on it and fail with &apos;invalid device function&apos;: set HIP_VISIBLE_DEVICES to the other GPUs, numbered as ROCm counts them (&apos;rocminfo&apos; lists them in that order; ROCm&apos;s docs, &apos;GPU isolation techniques&apos;).</source>
        <translation>请对 PyTorch 隐藏它，否则任务可能落在它上面并以 &apos;invalid device function&apos; 失败：将 HIP_VISIBLE_DEVICES 设为其他 GPU，按 ROCm 的编号（&apos;rocminfo&apos; 按此顺序列出；ROCm 文档 &apos;GPU isolation techniques&apos;）。</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is in other PyTorch ROCm builds, not in those of {build}&apos;s release.</source>
        <translation>{gpu}（{target}）在其他 PyTorch ROCm 构建版本中，但不在 {build} 所属版本的构建版本中。</translation>
    </message>
    <message>
        <source>Ask for the release whose ROCm build carries {target} (run the recommendation without a version to get it), or keep the CPU build.</source>
        <translation>请指定其 ROCm 构建版本包含 {target} 的版本（不指定版本运行推荐即可得到），或保留 CPU 版本。</translation>
    </message>
    <message>
        <source>{gpu}: its gfx target could not be told, so no PyTorch ROCm build could be checked against it.</source>
        <translation>{gpu}：无法确定其 gfx 目标，因此无法针对它检查任何 PyTorch ROCm 构建版本。</translation>
    </message>
    <message>
        <source>Check that the amdgpu driver is loaded (&apos;ls /sys/class/kfd/kfd/topology/nodes&apos; lists the GPU), or install ROCm&apos;s &apos;rocminfo&apos;, then run the wizard again.</source>
        <translation>请检查 amdgpu 驱动程序是否已加载（&apos;ls /sys/class/kfd/kfd/topology/nodes&apos; 会列出该 GPU），或安装 ROCm 的 &apos;rocminfo&apos;，然后再次运行向导。</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch publishes its ROCm builds for Linux only, and this is {os}.</source>
        <translation>{gpu}：PyTorch 仅为 Linux 发布 ROCm 构建版本，而本机是 {os}。</translation>
    </message>
    <message>
        <source>The plan is the CPU build. On Linux (installed beside this system, for example) PyTorch&apos;s ROCm wheels would use this GPU. DirectML is not offered: Microsoft keeps it in maintenance only.</source>
        <translation>方案为 CPU 版本。在 Linux 上（例如与本系统并存安装），PyTorch 的 ROCm wheel 可以使用此 GPU。不提供 DirectML：Microsoft 已将其转为仅维护状态。</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch publishes its ROCm builds for Linux only, and this is Windows.</source>
        <translation>{gpu}：PyTorch 仅为 Linux 发布 ROCm 构建版本，而本机是 Windows。</translation>
    </message>
    <message>
        <source>The plan is the CPU build. AMD publishes its own preview PyTorch wheels for Windows ({amd_builds}); the wizard does not plan them, because which GPUs they serve and which driver they need is not in its data yet. On Linux (installed beside Windows, for example) PyTorch&apos;s ROCm wheels would use this GPU where they carry its target. DirectML is not offered: Microsoft keeps it in maintenance only.</source>
        <translation>方案为 CPU 版本。AMD 为 Windows 发布了自己的 PyTorch 预览版 wheel（{amd_builds}）；向导不会将其纳入方案，因为其数据中还没有这些 wheel 支持哪些 GPU、需要哪个驱动程序的信息。在 Linux 上（例如与 Windows 并存安装），只要 PyTorch 的 ROCm wheel 包含此 GPU 的目标，就可以使用此 GPU。不提供 DirectML：Microsoft 已将其转为仅维护状态。</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch&apos;s ROCm wheels are built for x86_64 only, and this machine is {arch}.</source>
        <translation>{gpu}：PyTorch 的 ROCm wheel 仅为 x86_64 构建，而这台机器是 {arch}。</translation>
    </message>
    <message>
        <source>The plan is the CPU build. On an x86_64 Linux machine PyTorch&apos;s ROCm wheels would use this GPU where they carry its target.</source>
        <translation>方案是 CPU 版本。在 x86_64 Linux 机器上，只要 PyTorch 的 ROCm wheel 包含此 GPU 的目标，就会使用它。</translation>
    </message>
    <message>
        <source>{gpu} ({target}): AMD publishes its own PyTorch wheels for Windows that carry this target; the wizard does not set them up yet.</source>
        <translation>{gpu}（{target}）：AMD 为 Windows 发布了自己的、包含此目标的 PyTorch wheel；向导暂不支持设置它们。</translation>
    </message>
    <message>
        <source>The plan is the CPU build. AMD&apos;s wheels are installed by hand from AMD&apos;s own download site (see AMD&apos;s &apos;PyTorch on Windows&apos; guide); PyTorch&apos;s ROCm wheels are for Linux only.</source>
        <translation>方案为 CPU 版本。AMD 的 wheel 需从 AMD 自己的下载网站手动安装（见 AMD 的 &apos;PyTorch on Windows&apos; 指南）；PyTorch 的 ROCm wheel 仅适用于 Linux。</translation>
    </message>
    <message>
        <source>{gpu} ({family}) is not served by PyTorch&apos;s XPU builds.</source>
        <translation>{gpu}（{family}）不受 PyTorch XPU 构建版本支持。</translation>
    </message>
    <message>
        <source>The plan is the CPU build. PyTorch&apos;s XPU builds serve {families}.</source>
        <translation>方案为 CPU 版本。PyTorch 的 XPU 构建版本支持 {families}。</translation>
    </message>
    <message>
        <source>{gpu} ({family}) is not served by PyTorch&apos;s XPU builds; the plan uses the other Intel GPUs.</source>
        <translation>{gpu}（{family}）不受 PyTorch 的 XPU 构建版本支持；方案使用其他 Intel GPU。</translation>
    </message>
    <message>
        <source>Hide it from PyTorch, or work may land on it and fail: set ZE_AFFINITY_MASK to the other GPUs, numbered as Level Zero counts them (oneAPI Level Zero specification, &apos;Affinity Mask&apos;).</source>
        <translation>请对 PyTorch 隐藏它，否则任务可能落在它上面并失败：将 ZE_AFFINITY_MASK 设为其他 GPU，按 Level Zero 的编号（oneAPI Level Zero 规范 &apos;Affinity Mask&apos;）。</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch&apos;s XPU builds are for Linux and Windows, and this is {os}.</source>
        <translation>{gpu}：PyTorch 的 XPU 构建版本适用于 Linux 和 Windows，而本机是 {os}。</translation>
    </message>
    <message>
        <source>The plan is the CPU build.</source>
        <translation>方案为 CPU 版本。</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch&apos;s XPU wheels are built for x86_64 only, and this machine is {arch}.</source>
        <translation>{gpu}：PyTorch 的 XPU wheel 仅为 x86_64 构建，而这台机器是 {arch}。</translation>
    </message>
    <message>
        <source>Intel graphics driver {driver} is older than the {min_driver} that {build} needs.</source>
        <translation>Intel 显卡驱动程序 {driver} 低于 {build} 所需的 {min_driver}。</translation>
    </message>
    <message>
        <source>Update the Intel graphics driver (Intel&apos;s Arc and Iris Xe graphics driver, or the Intel Driver &amp; Support Assistant) to {min_driver} or newer, restart Windows, and run the wizard again.</source>
        <translation>请将 Intel 显卡驱动程序（Intel Arc 和 Iris Xe 显卡驱动程序，或 Intel Driver &amp; Support Assistant）更新到 {min_driver} 或更高版本，重启 Windows，然后再次运行向导。</translation>
    </message>
    <message>
        <source>macOS {macos} is older than the {minimum} that PyTorch&apos;s MPS backend needs: PyTorch would not use the {gpu}.</source>
        <translation>macOS {macos} 低于 PyTorch MPS 后端所需的 {minimum}：PyTorch 不会使用 {gpu}。</translation>
    </message>
    <message>
        <source>Update macOS to {minimum} or newer to train on the Apple GPU; until then the plan runs on the CPU.</source>
        <translation>请将 macOS 更新到 {minimum} 或更高版本，以便在 Apple GPU 上训练；在此之前，方案在 CPU 上运行。</translation>
    </message>
    <message>
        <source>The wizard plans TensorFlow on the CPU here, not on {gpu}: {fact}</source>
        <translation>在本机上，向导为 TensorFlow 制定的方案在 CPU 上运行，而不是在 {gpu} 上：{fact}</translation>
    </message>
    <message>
        <source>This user cannot open the GPU&apos;s device files (/dev/kfd): {detail}.</source>
        <translation>当前用户无法打开 GPU 的设备文件（/dev/kfd）：{detail}。</translation>
    </message>
    <message>
        <source>ROCm&apos;s install guide: add yourself to the {groups} groups (&apos;sudo usermod -a -G {groups} $LOGNAME&apos;), then log out and in again, and run the wizard again.</source>
        <translation>ROCm 安装指南：将自己加入 {groups} 组（&apos;sudo usermod -a -G {groups} $LOGNAME&apos;），注销后重新登录，然后再次运行向导。</translation>
    </message>
    <message>
        <source>PyTorch {first} and newer need macOS {minimum}; this Mac has {macos}, so the plan is PyTorch {version}.</source>
        <translation>PyTorch {first} 及更新版本需要 macOS {minimum}；这台 Mac 的系统为 {macos}，因此方案为 PyTorch {version}。</translation>
    </message>
    <message>
        <source>Update macOS to {minimum} or newer for the newest PyTorch releases.</source>
        <translation>请将 macOS 更新到 {minimum} 或更高版本，以使用最新的 PyTorch 版本。</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;); in WSL 2, install the driver on Windows, not inside WSL.</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 安装 NVIDIA 驱动并重启。在容器中，请以 GPU 访问方式启动容器（&apos;docker run --gpus all ...&apos;）；在 WSL 2 中，请在 Windows 上安装驱动，而不是在 WSL 内。</translation>
    </message>
    <message>
        <source>{library} needs the CUDA driver function {symbol}, which the installed NVIDIA driver does not have: the driver is older than the CUDA that {library} was built for.</source>
        <translation>{library} 需要 CUDA 驱动函数 {symbol}，而已安装的 NVIDIA 驱动程序没有它：驱动程序比构建 {library} 时所用的 CUDA 更旧。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart (&apos;nvidia-smi&apos; shows the newest CUDA the driver supports; the package needs a driver made for the CUDA it was built with), or install a build of the package made for the driver&apos;s CUDA. In a container, the host&apos;s driver is the one that counts.</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 更新 NVIDIA 驱动程序并重启（&apos;nvidia-smi&apos; 会显示驱动程序支持的最新 CUDA；该软件包需要为其构建所用的 CUDA 而制作的驱动程序），或安装为该驱动程序的 CUDA 构建的软件包版本。在容器中，起作用的是主机的驱动程序。</translation>
    </message>
    <message>
        <source>The NVIDIA driver supports CUDA up to {driver_cuda}, which is older than the CUDA of the installed PyTorch build.</source>
        <translation>NVIDIA 驱动程序最高支持 CUDA {driver_cuda}，低于已安装的 PyTorch 构建版本所用的 CUDA。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart, or install a PyTorch build for CUDA {driver_cuda} or older (the matching cuXXX index on pytorch.org).</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 更新 NVIDIA 驱动并重启，或安装面向 CUDA {driver_cuda} 或更旧版本的 PyTorch（pytorch.org 上对应的 cuXXX 索引）。</translation>
    </message>
    <message>
        <source>The GPU ran out of memory.</source>
        <translation>GPU 显存不足。</translation>
    </message>
    <message>
        <source>Use a smaller batch size or model, or free the GPU: close other programs that use it (&apos;nvidia-smi&apos; lists them). In PyTorch, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True can help against fragmentation; in TensorFlow, enable memory growth (tf.config.experimental.set_memory_growth) so it does not reserve all GPU memory at start.</source>
        <translation>请减小批大小或模型，或释放 GPU：关闭其他正在使用它的程序（&apos;nvidia-smi&apos; 会列出这些程序）。在 PyTorch 中，PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True 有助于缓解碎片问题；在 TensorFlow 中，请启用显存按需增长（tf.config.experimental.set_memory_growth），使其不会在启动时占用全部 GPU 显存。</translation>
    </message>
    <message>
        <source>The GPU ran out of memory (it could not allocate {size}).</source>
        <translation>GPU 显存不足（无法分配 {size}）。</translation>
    </message>
    <message>
        <source>The installed framework is a CPU-only build: it cannot use the GPU.</source>
        <translation>已安装的框架是仅支持 CPU 的版本：无法使用 GPU。</translation>
    </message>
    <message>
        <source>Install its GPU build. PyTorch: from the CUDA index that fits your driver, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (on Windows, torch from PyPI is CPU-only). TensorFlow: on Linux &apos;pip install tensorflow[and-cuda]&apos;; on native Windows, TensorFlow 2.11 and newer have no GPU build (use WSL 2, or TensorFlow 2.10).</source>
        <translation>请安装其 GPU 版本。PyTorch：从与您的驱动程序相符的 CUDA 索引安装，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;（在 Windows 上，PyPI 中的 torch 仅支持 CPU）。TensorFlow：在 Linux 上运行 &apos;pip install tensorflow[and-cuda]&apos;；在原生 Windows 上，TensorFlow 2.11 及更高版本没有 GPU 版本（请使用 WSL 2 或 TensorFlow 2.10）。</translation>
    </message>
    <message>
        <source>The installed PyTorch is a CPU-only build (&apos;Torch not compiled with CUDA enabled&apos;).</source>
        <translation>已安装的 PyTorch 是仅支持 CPU 的版本（&apos;Torch not compiled with CUDA enabled&apos;）。</translation>
    </message>
    <message>
        <source>The code asked for a CUDA GPU on a Mac, where PyTorch has no CUDA (&apos;Torch not compiled with CUDA enabled&apos;).</source>
        <translation>代码在 Mac 上请求了 CUDA GPU，但 Mac 上的 PyTorch 不支持 CUDA（&apos;Torch not compiled with CUDA enabled&apos;）。</translation>
    </message>
    <message>
        <source>cuDNN could not find zlibwapi.dll.</source>
        <translation>cuDNN 找不到 zlibwapi.dll。</translation>
    </message>
    <message>
        <source>cuDNN 8.3 and newer 8.x releases on Windows need zlibwapi.dll, which is not part of cuDNN or CUDA (NVIDIA&apos;s cuDNN 8 installation guide, &apos;Installing Zlib&apos;). Put a 64-bit zlibwapi.dll in a folder on PATH, such as CUDA&apos;s bin folder, or use conda-forge&apos;s cudnn package, which brings it.</source>
        <translation>Windows 上的 cuDNN 8.3 及更高的 8.x 版本需要 zlibwapi.dll，它既不属于 cuDNN 也不属于 CUDA（见 NVIDIA cuDNN 8 安装指南中的“Installing Zlib”）。请将 64 位 zlibwapi.dll 放到 PATH 中的某个文件夹（例如 CUDA 的 bin 文件夹），或使用自带该文件的 conda-forge cudnn 包。</translation>
    </message>
    <message>
        <source>Windows could not load {library}, a part of PyTorch, or a DLL it depends on.</source>
        <translation>Windows 无法加载 PyTorch 的组成部分 {library}，或其依赖的某个 DLL。</translation>
    </message>
    <message>
        <source>The file is usually there; what is missing is a DLL it needs, most often the Microsoft Visual C++ Redistributable: install the latest x64 version (https://aka.ms/vs/17/release/vc_redist.x64.exe) and restart. PyTorch 2.4.0 on Windows failed this way on fbgemm.dll, fixed in 2.4.1 (pytorch/pytorch#131662). If it persists, reinstall torch in a fresh environment.</source>
        <translation>该文件通常存在；缺少的是它所需的某个 DLL，最常见的是 Microsoft Visual C++ Redistributable：请安装最新的 x64 版本（https://aka.ms/vs/17/release/vc_redist.x64.exe）并重启。Windows 上的 PyTorch 2.4.0 曾因 fbgemm.dll 出现此问题，已在 2.4.1 中修复（pytorch/pytorch#131662）。如果问题仍然存在，请在全新的环境中重新安装 torch。</translation>
    </message>
    <message>
        <source>Most often this is PyTorch 2.4.0&apos;s known failure on Windows: fbgemm.dll needs libomp140.x86_64.dll, which that release did not bring (pytorch/pytorch#129568), fixed in 2.4.1. Install torch 2.4.1 or newer from the same index, for example &apos;pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121&apos;. With another version, install the latest x64 Microsoft Visual C++ Redistributable (https://aka.ms/vs/17/release/vc_redist.x64.exe) and restart.</source>
        <translation>最常见的原因是 PyTorch 2.4.0 在 Windows 上的已知问题：fbgemm.dll 需要 libomp140.x86_64.dll，而该版本没有附带它（pytorch/pytorch#129568），已在 2.4.1 中修复。请从同一索引安装 torch 2.4.1 或更新版本，例如 &apos;pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121&apos;。如果是其他版本，请安装最新的 x64 Microsoft Visual C++ Redistributable（https://aka.ms/vs/17/release/vc_redist.x64.exe）并重启。</translation>
    </message>
    <message>
        <source>The installer found no installable version of {requirements}.</source>
        <translation>安装程序找不到 {requirements} 的可安装版本。</translation>
    </message>
    <message>
        <source>Usual causes: a Python version the package does not support yet (or any more), a name or version that does not exist (PyTorch&apos;s CUDA builds such as +cu118 are on download.pytorch.org, not PyPI), or no access to the package index. Let the wizard pick a Python and a version that exist together.</source>
        <translation>常见原因：该软件包尚不支持（或已不再支持）此 Python 版本；名称或版本不存在（PyTorch 的 CUDA 版本（如 +cu118）位于 download.pytorch.org，而不在 PyPI 上）；或无法访问软件包索引。请让向导选择相互匹配的 Python 和版本。</translation>
    </message>
    <message>
        <source>The installer found no installable version of {requirements}; versions available here: {versions}.</source>
        <translation>安装程序找不到 {requirements} 的可安装版本；此处可用的版本：{versions}。</translation>
    </message>
    <message>
        <source>The installer found no {requirements}: the newest {package} it could install here is {newest}.</source>
        <translation>安装程序未找到 {requirements}：它在此处可安装的最新 {package} 版本是 {newest}。</translation>
    </message>
    <message>
        <source>Nothing newer than {newest} is published on this index for this Python and platform: {package} {wanted} is there for other Python versions, platforms or CUDA indexes (a newer PyTorch may need the cu126 or cu128 index rather than an older one), or not released yet. Install {newest}, or use the Python, platform or index that {wanted} is published for; &apos;gpuwizard recommend&apos; names a set that exists together.</source>
        <translation>对于当前的 Python 版本和平台，此索引上没有比 {newest} 更新的版本：{package} {wanted} 要么只针对其他 Python 版本、平台或 CUDA 索引发布（较新的 PyTorch 可能需要 cu126 或 cu128 索引，而不是较旧的索引），要么尚未发布。请安装 {newest}，或改用发布了 {wanted} 的 Python 版本、平台或索引；&apos;gpuwizard recommend&apos; 会列出一组可以同时使用的版本组合。</translation>
    </message>
    <message>
        <source>The installer found no {requirements}: the oldest {package} it could install here is {oldest}.</source>
        <translation>安装程序未找到 {requirements}：它在此处可安装的最旧 {package} 版本是 {oldest}。</translation>
    </message>
    <message>
        <source>{package} releases before {oldest} have no wheels for this Python or platform (each release is built for a range of Python versions). Install {package} {oldest} or newer, or use a Python that {package} {wanted} was built for; &apos;gpuwizard recommend&apos; names a set that exists together.</source>
        <translation>{oldest} 之前的 {package} 版本没有适用于当前 Python 版本或平台的 wheel（每个版本仅针对一定范围的 Python 版本构建）。请安装 {package} {oldest} 或更高版本，或改用构建了 {package} {wanted} 的 Python 版本；&apos;gpuwizard recommend&apos; 会列出一组可以同时使用的版本组合。</translation>
    </message>
    <message>
        <source>This looks like a 32-bit Python, or one too new or too old for the package: PyTorch and TensorFlow publish 64-bit packages only, for a range of Python versions. Install a 64-bit Python from python.org that the framework supports and let the wizard pick the version.</source>
        <translation>这似乎是 32 位 Python，或者对该软件包而言版本过新或过旧：PyTorch 和 TensorFlow 只发布 64 位软件包，且只支持一定范围的 Python 版本。请从 python.org 安装框架支持的 64 位 Python，并让向导选择版本。</translation>
    </message>
    <message>
        <source>The installer found no installable version of {requirements} for Python {python}.</source>
        <translation>安装程序找不到适用于 Python {python} 的 {requirements} 的可安装版本。</translation>
    </message>
    <message>
        <source>Most likely no release of it publishes wheels for Python {python} (yet, or any more): frameworks support a range of Python versions per release. Create the environment with a Python the release supports, for example &apos;uv venv --python 3.12&apos;, and install again; &apos;gpuwizard recommend --framework pytorch&apos; (or tensorflow) names the Python for each release. A 32-bit Python finds no version either: PyTorch and TensorFlow publish 64-bit packages only.</source>
        <translation>最可能的原因是没有任何版本为 Python {python} 发布 wheel 包（尚未发布，或已不再发布）：框架的每个版本只支持一定范围的 Python 版本。请使用该版本支持的 Python 创建环境，例如 &apos;uv venv --python 3.12&apos;，然后重新安装；&apos;gpuwizard recommend --framework pytorch&apos;（或 tensorflow）会给出每个版本对应的 Python。32 位 Python 同样找不到任何版本：PyTorch 和 TensorFlow 只发布 64 位软件包。</translation>
    </message>
    <message>
        <source>The installer picked {requirements}, which has no wheel for this platform.</source>
        <translation>安装程序选择了 {requirements}，但它没有适用于此平台的 wheel 包。</translation>
    </message>
    <message>
        <source>The index has that version only for other operating systems or processors (uv&apos;s hint names them). Install a version that has a wheel here: for PyTorch&apos;s CUDA builds, one from the index of a CUDA variant that publishes this platform (on Windows, win_amd64: &apos;gpuwizard recommend --framework pytorch&apos; names one). In a uv project, give the PyTorch index a platform marker in tool.uv.sources (marker = &quot;sys_platform == &apos;linux&apos;&quot;), as uv&apos;s PyTorch guide shows, and lock again.</source>
        <translation>该索引只为其他操作系统或处理器提供此版本（uv 的提示中列出了它们）。请安装一个在此平台上有 wheel 包的版本：对于 PyTorch 的 CUDA 构建版本，请从发布了此平台的某个 CUDA 变体的索引中选择（在 Windows 上为 win_amd64：&apos;gpuwizard recommend --framework pytorch&apos; 会给出一个）。在 uv 项目中，请按照 uv 的 PyTorch 指南，在 tool.uv.sources 中为 PyTorch 索引添加平台标记（marker = &quot;sys_platform == &apos;linux&apos;&quot;），然后重新锁定。</translation>
    </message>
    <message>
        <source>The folder of wheels has no installable {requirements}.</source>
        <translation>wheel 文件夹中没有可安装的 {requirements}。</translation>
    </message>
    <message>
        <source>The install took packages only from a local folder of wheels (offline, --find-links, no package index), and that folder lacks {requirements}, which the packages being installed depend on; the Python version is not the problem. On a machine with internet, download the framework with all its dependencies into the folder for this machine&apos;s Python and platform (&apos;pip download --dest FOLDER --only-binary=:all: --python-version X.Y --platform TAG PACKAGE&apos;), then install again. The wizard&apos;s Choose page and &apos;gpuwizard env create --offline&apos; check a folder first and show the exact command.</source>
        <translation>安装仅从本地 wheel 文件夹获取软件包（离线、--find-links、不使用软件包索引），而该文件夹缺少 {requirements}，正在安装的软件包依赖于它；问题不在于 Python 版本。请在可联网的计算机上，按本机的 Python 版本和平台，将框架及其全部依赖项下载到该文件夹中（&apos;pip download --dest FOLDER --only-binary=:all: --python-version X.Y --platform TAG PACKAGE&apos;），然后重新安装。向导的“选择”页面和 &apos;gpuwizard env create --offline&apos; 会先检查文件夹，并显示确切的命令。</translation>
    </message>
    <message>
        <source>Install &apos;tensorflow&apos; instead and replace &apos;tensorflow-gpu&apos; in requirement files (on Linux, &apos;pip install tensorflow[and-cuda]&apos; also installs the CUDA libraries). Since December 2022 &apos;tensorflow-gpu&apos; is an empty package that fails on install; the two were the same package since TensorFlow 2.1.</source>
        <translation>请改为安装 &apos;tensorflow&apos;，并替换需求文件中的 &apos;tensorflow-gpu&apos;（在 Linux 上，&apos;pip install tensorflow[and-cuda]&apos; 还会安装 CUDA 库）。自 2022 年 12 月起，&apos;tensorflow-gpu&apos; 是一个安装时即会失败的空包；自 TensorFlow 2.1 起，两者就是同一个包。</translation>
    </message>
    <message>
        <source>cuDNN failed to start (CUDNN_STATUS_INTERNAL_ERROR or &apos;Failed to get convolution algorithm&apos;).</source>
        <translation>cuDNN 启动失败（CUDNN_STATUS_INTERNAL_ERROR 或 &apos;Failed to get convolution algorithm&apos;）。</translation>
    </message>
    <message>
        <source>Usual causes: the GPU memory was already full when cuDNN started (TensorFlow reserves nearly all GPU memory by default: enable memory growth with tf.config.experimental.set_memory_growth, and close other programs that use the GPU), or a cuDNN that does not match the framework build (install the cuDNN your build expects, or use an environment that brings its own).</source>
        <translation>常见原因：cuDNN 启动时 GPU 显存已满（TensorFlow 默认会占用几乎全部 GPU 显存：请用 tf.config.experimental.set_memory_growth 启用显存按需增长，并关闭其他使用 GPU 的程序）；或 cuDNN 与框架构建版本不匹配（请安装该构建版本所需的 cuDNN，或使用自带 cuDNN 的环境）。</translation>
    </message>
    <message>
        <source>Usual causes in PyTorch: GPU memory was already nearly full (other programs: &apos;nvidia-smi&apos; lists them; or a batch too large: make it smaller), another cuDNN shadowing the one PyTorch brings (unset LD_LIBRARY_PATH, or remove a CUDA folder from PATH, for this environment), or a build older than the GPU (install a current one). Running once with CUDA_LAUNCH_BLOCKING=1 shows the call that failed.</source>
        <translation>PyTorch 中的常见原因：GPU 显存已几乎用满（其他程序占用：&apos;nvidia-smi&apos; 会列出它们；或批大小过大：请减小），另一个 cuDNN 遮蔽了 PyTorch 自带的 cuDNN（在此环境中取消设置 LD_LIBRARY_PATH，或从 PATH 中移除 CUDA 文件夹），或构建版本比 GPU 旧（请安装当前版本）。使用 CUDA_LAUNCH_BLOCKING=1 运行一次可显示出错的调用。</translation>
    </message>
    <message>
        <source>The framework was built with cuDNN {compiled}, but cuDNN {loaded} was loaded.</source>
        <translation>框架是用 cuDNN {compiled} 构建的，但加载的是 cuDNN {loaded}。</translation>
    </message>
    <message>
        <source>The loaded cuDNN must have the same major version and an equal or newer minor version. Another cuDNN on the library search path is found first: remove it from PATH or LD_LIBRARY_PATH, or install cuDNN {compiled} or a newer {major}.x; environments that bring their own cuDNN (pip or conda) avoid this.</source>
        <translation>加载的 cuDNN 必须主版本相同，且次版本相同或更高。库搜索路径中先找到了另一个 cuDNN：请将其从 PATH 或 LD_LIBRARY_PATH 中删除，或安装 cuDNN {compiled} 或更新的 {major}.x 版本；自带 cuDNN 的环境（pip 或 conda）可避免此问题。</translation>
    </message>
    <message>
        <source>Installing failed on a file path longer than Windows&apos; classic 260-character limit: Windows long-path support is probably off.</source>
        <translation>安装失败：某个文件路径超出了 Windows 传统的 260 字符限制，Windows 长路径支持可能已关闭。</translation>
    </message>
    <message>
        <source>Either enable long paths (an administrator sets HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled to 1, as the TensorFlow install guide says), or create the environment in a short folder such as C:\envs.</source>
        <translation>请启用长路径（由管理员将 HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled 设为 1，如 TensorFlow 安装指南所述），或在较短的文件夹中创建环境，如 C:\envs。</translation>
    </message>
    <message>
        <source>The log shows the Microsoft Store build of Python {python}.</source>
        <translation>日志显示使用的是 Microsoft Store 版本的 Python {python}。</translation>
    </message>
    <message>
        <source>The Store build installs packages in a deep, redirected folder under AppData\Local\Packages, which reaches Windows&apos; path length limit sooner, and it is known to break DLL loading for CUDA (TensorFlow issues #48868, #61438). Use a Python from python.org, or let the wizard create the environment with a uv-managed Python.</source>
        <translation>Store 版本会将软件包安装到 AppData\Local\Packages 下层级很深的重定向文件夹中，更容易达到 Windows 的路径长度限制，而且已知会导致 CUDA 的 DLL 加载失败（TensorFlow issue #48868、#61438）。请使用 python.org 的 Python，或让向导使用 uv 管理的 Python 创建环境。</translation>
    </message>
    <message>
        <source>The interpreter {python} does not exist or cannot be run.</source>
        <translation>解释器 {python} 不存在或无法运行。</translation>
    </message>
    <message>
        <source>Check the path (the environment may have been moved or removed); `gpuwizard env list` shows the interpreters of the environments the wizard made.</source>
        <translation>请检查路径（环境可能已被移动或删除）；`gpuwizard env list` 会列出向导所创建环境的解释器。</translation>
    </message>
    <message>
        <source>The framework cannot be imported in this environment ({error}).</source>
        <translation>无法在此环境中导入框架（{error}）。</translation>
    </message>
    <message>
        <source>Install it into this environment (`gpuwizard env create` makes one with the right build), or test the environment that has it with --env NAME or --python EXE.</source>
        <translation>请将框架安装到此环境中（`gpuwizard env create` 会创建一个具有正确构建版本的环境），或使用 --env NAME 或 --python EXE 测试已安装框架的环境。</translation>
    </message>
    <message>
        <source>The training test stopped with an error: {error}</source>
        <translation>训练测试因错误而停止：{error}</translation>
    </message>
    <message>
        <source>Look at the other findings for the known cause; run `gpuwizard diagnose` on the full output if none is shown.</source>
        <translation>请查看其他问题以了解已知原因；如果没有显示，请对完整输出运行 `gpuwizard diagnose`。</translation>
    </message>
    <message>
        <source>The training test was stopped before it finished ({reason}).</source>
        <translation>训练测试在完成前被停止（{reason}）。</translation>
    </message>
    <message>
        <source>A test that hangs usually waits for a GPU that another process holds, or for a driver that no longer answers: check `nvidia-smi`, close other GPU programs, and run it again.</source>
        <translation>测试挂起通常是在等待被其他进程占用的 GPU，或在等待已无响应的驱动程序：请检查 `nvidia-smi`，关闭其他 GPU 程序，然后再次运行。</translation>
    </message>
    <message>
        <source>The model did not learn: the loss went from {loss_first} to {loss_last}.</source>
        <translation>模型没有学习：损失从 {loss_first} 变为 {loss_last}。</translation>
    </message>
    <message>
        <source>A loss that does not fall on this simple task means wrong results from the framework or the GPU: update the driver, and reinstall the framework build the wizard recommends.</source>
        <translation>在这个简单任务上损失不下降，说明框架或 GPU 给出了错误的结果：请更新驱动程序，并重新安装向导推荐的框架构建版本。</translation>
    </message>
    <message>
        <source>The GPU computed different results from the CPU (difference {difference}, allowed {tolerance}).</source>
        <translation>GPU 的计算结果与 CPU 不同（差异 {difference}，允许 {tolerance}）。</translation>
    </message>
    <message>
        <source>Wrong GPU results come from an unstable overclock, overheating or failing hardware, or a framework build that does not match the GPU: reset clocks to default, update the driver, and run the test again.</source>
        <translation>GPU 结果错误的原因可能是超频不稳定、过热、硬件故障，或框架构建版本与 GPU 不匹配：请将频率恢复为默认值，更新驱动程序，然后再次运行测试。</translation>
    </message>
    <message>
        <source>The framework has GPU support but sees no GPU, although this machine has one.</source>
        <translation>框架支持 GPU，但识别不到任何 GPU，尽管本机有 GPU。</translation>
    </message>
    <message>
        <source>Check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides every GPU), that the driver is new enough for the framework&apos;s CUDA build, and, in a container, that it was started with GPU access (--gpus all).</source>
        <translation>请检查 CUDA_VISIBLE_DEVICES（值为空或索引错误会隐藏所有 GPU）、驱动程序是否足够新以支持框架的 CUDA 版本，以及容器（如有）启动时是否启用了 GPU 访问（--gpus all）。</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}), which cannot use an NVIDIA GPU: {build} has no CUDA.</source>
        <translation>PyTorch 是 ROCm 构建版本（HIP {runtime}），无法使用 NVIDIA GPU：{build} 不含 CUDA。</translation>
    </message>
    <message>
        <source>Install a CUDA build of PyTorch in this environment, from the CUDA index that fits your driver (for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;), or recreate the environment with the build the wizard recommends.</source>
        <translation>请在此环境中安装 PyTorch 的 CUDA 构建版本，从与你的驱动程序匹配的 CUDA 索引安装（例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;），或用向导推荐的构建版本重新创建环境。</translation>
    </message>
    <message>
        <source>PyTorch sees no ROCm GPU: torch.version.hip is None, so {build} is not a ROCm build.</source>
        <translation>PyTorch 看不到任何 ROCm GPU：torch.version.hip 为 None，因此 {build} 不是 ROCm 构建版本。</translation>
    </message>
    <message>
        <source>Install a ROCm build of PyTorch in this environment, from the ROCm index the wizard recommends for this GPU (for example &apos;pip install torch --index-url https://download.pytorch.org/whl/rocm6.4&apos;). PyTorch&apos;s own ROCm builds are for Linux; the builds from PyPI and from the CPU and CUDA indexes cannot use an AMD GPU.</source>
        <translation>请在此环境中安装 PyTorch 的 ROCm 构建版本，从向导为此 GPU 推荐的 ROCm 索引安装（例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/rocm6.4&apos;）。PyTorch 官方的 ROCm 构建版本适用于 Linux；来自 PyPI 以及 CPU 和 CUDA 索引的构建版本无法使用 AMD GPU。</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}) but sees no GPU: /dev/kfd does not exist.</source>
        <translation>PyTorch 是 ROCm 构建版本（HIP {runtime}），但看不到任何 GPU：/dev/kfd 不存在。</translation>
    </message>
    <message>
        <source>ROCm reaches AMD GPUs through /dev/kfd, the amdgpu kernel driver&apos;s compute interface: without it the driver is not loaded or serves no GPU for compute. Check &apos;lsmod | grep amdgpu&apos; and &apos;sudo dmesg | grep -i kfd&apos;, install or update AMD&apos;s amdgpu driver for your ROCm version, and restart. In a container, start it with &apos;--device=/dev/kfd --device=/dev/dri&apos;.</source>
        <translation>ROCm 通过 /dev/kfd（amdgpu 内核驱动程序的计算接口）访问 AMD GPU：没有它，说明驱动程序未加载，或没有为任何 GPU 提供计算功能。请检查 &apos;lsmod | grep amdgpu&apos; 和 &apos;sudo dmesg | grep -i kfd&apos;，为你的 ROCm 版本安装或更新 AMD 的 amdgpu 驱动程序，然后重启。如果在容器中，请使用 &apos;--device=/dev/kfd --device=/dev/dri&apos; 启动容器。</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}) but sees no GPU: this user cannot open /dev/kfd.</source>
        <translation>PyTorch 是 ROCm 构建版本（HIP {runtime}），但看不到任何 GPU：当前用户无法打开 /dev/kfd。</translation>
    </message>
    <message>
        <source>ROCm needs read and write access to /dev/kfd and /dev/dri/renderD*: add the user to the render and video groups (&apos;sudo usermod -aG render,video $USER&apos;), then log out and in again. In a container, pass the host&apos;s own render and video group IDs (--group-add; &apos;getent group render video&apos; on the host tells them).</source>
        <translation>ROCm 需要对 /dev/kfd 和 /dev/dri/renderD* 的读写权限：请将该用户加入 render 和 video 组（&apos;sudo usermod -aG render,video $USER&apos;），然后注销并重新登录。如果在容器中，请传入主机自己的 render 和 video 组 ID（--group-add；在主机上运行 &apos;getent group render video&apos; 可查看）。</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}) but sees no AMD GPU.</source>
        <translation>PyTorch 是 ROCm 构建版本（HIP {runtime}），但看不到任何 AMD GPU。</translation>
    </message>
    <message>
        <source>Check that HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES are not set to hide the GPU (an empty value or a wrong index hides every GPU), and that &apos;rocminfo&apos; lists the GPU as an agent; if it does not, the installed amdgpu driver and ROCm do not serve this GPU for compute: update them to a version that lists it as supported.</source>
        <translation>请检查 HIP_VISIBLE_DEVICES、ROCR_VISIBLE_DEVICES 和 CUDA_VISIBLE_DEVICES 是否被设置成隐藏了该 GPU（空值或错误的索引会隐藏所有 GPU），以及 &apos;rocminfo&apos; 是否将该 GPU 列为代理（agent）；如果没有，说明已安装的 amdgpu 驱动程序和 ROCm 没有为此 GPU 提供计算支持：请将它们更新到将此 GPU 列为受支持的版本。</translation>
    </message>
    <message>
        <source>PyTorch sees no Intel GPU: {build} is not an XPU build.</source>
        <translation>PyTorch 看不到任何 Intel GPU：{build} 不是 XPU 构建版本。</translation>
    </message>
    <message>
        <source>Install PyTorch&apos;s XPU build in this environment, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos; (PyTorch 2.5 and newer, Linux and Windows), with Intel&apos;s GPU driver installed. The builds from PyPI and from the CPU and CUDA indexes cannot use an Intel GPU.</source>
        <translation>请在此环境中安装 PyTorch 的 XPU 构建版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos;（PyTorch 2.5 及更新版本，Linux 和 Windows），并安装 Intel 的 GPU 驱动程序。来自 PyPI 以及 CPU 和 CUDA 索引的构建版本无法使用 Intel GPU。</translation>
    </message>
    <message>
        <source>PyTorch is an XPU build ({build}) but sees no Intel GPU.</source>
        <translation>PyTorch 是 XPU 构建版本（{build}），但看不到任何 Intel GPU。</translation>
    </message>
    <message>
        <source>PyTorch reaches Intel GPUs through the GPU driver&apos;s Level Zero runtime: install Intel&apos;s current GPU driver (on Linux its compute runtime, such as the libze-intel-gpu1 or intel-level-zero-gpu and intel-opencl-icd packages, with the user in the render group; on Windows the Intel Arc and Iris Xe graphics driver). Check that ZE_AFFINITY_MASK and ONEAPI_DEVICE_SELECTOR do not hide the GPU, and that it is one PyTorch supports (Arc A and B series, Core Ultra with Arc graphics, Data Center GPU Max).</source>
        <translation>PyTorch 通过 GPU 驱动程序的 Level Zero 运行时访问 Intel GPU：请安装 Intel 最新的 GPU 驱动程序（在 Linux 上为其计算运行时，例如 libze-intel-gpu1 或 intel-level-zero-gpu 以及 intel-opencl-icd 软件包，并将用户加入 render 组；在 Windows 上为 Intel Arc 和 Iris Xe 显卡驱动程序）。请检查 ZE_AFFINITY_MASK 和 ONEAPI_DEVICE_SELECTOR 是否隐藏了该 GPU，以及它是否为 PyTorch 支持的 GPU（Arc A 和 B 系列、带 Arc 显卡的 Core Ultra、Data Center GPU Max）。</translation>
    </message>
    <message>
        <source>PyTorch sees no Apple GPU: {build} was built without MPS (torch.backends.mps.is_built() is False).</source>
        <translation>PyTorch 看不到 Apple GPU：{build} 构建时未包含 MPS（torch.backends.mps.is_built() 为 False）。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s macOS builds from PyPI carry MPS (PyTorch 1.12 and newer): install torch from PyPI into this environment with a native arm64 Python on Apple silicon. A Python running under Rosetta (x86_64) gets the Intel build, and PyTorch publishes no Intel macOS builds after 2.2.</source>
        <translation>PyPI 上的 PyTorch macOS 构建版本包含 MPS（PyTorch 1.12 及更新版本）：请在 Apple 芯片上使用原生 arm64 Python，从 PyPI 将 torch 安装到此环境中。在 Rosetta 下运行的 Python（x86_64）会得到 Intel 版本，而 PyTorch 在 2.2 之后不再发布 Intel macOS 构建版本。</translation>
    </message>
    <message>
        <source>PyTorch has MPS but cannot use this Mac&apos;s GPU (macOS {runtime}).</source>
        <translation>PyTorch 包含 MPS，但无法使用这台 Mac 的 GPU（macOS {runtime}）。</translation>
    </message>
    <message>
        <source>MPS needs a Mac with Apple silicon or a Metal-capable AMD GPU, and the macOS the PyTorch release names (macOS 14 for recent releases: &apos;The MPS backend is supported on macOS 14.0+&apos;). Update macOS, or install the torch release the wizard recommends for this one. In a virtual machine, CI runners included, MPS is usually not available.</source>
        <translation>MPS 需要配备 Apple 芯片或支持 Metal 的 AMD GPU 的 Mac，以及该 PyTorch 版本指定的 macOS（近期版本需要 macOS 14：&apos;The MPS backend is supported on macOS 14.0+&apos;）。请更新 macOS，或安装向导为当前 macOS 推荐的 torch 版本。在虚拟机中（包括 CI 运行器），MPS 通常不可用。</translation>
    </message>
    <message>
        <source>The GPU trained only {speedup}x as fast as the CPU (expected at least {expected}x).</source>
        <translation>GPU 的训练速度仅为 CPU 的 {speedup} 倍（预期至少 {expected} 倍）。</translation>
    </message>
    <message>
        <source>Another program may be using the GPU, the card may be in a power-saving state or throttling from heat, or (laptops) the integrated GPU may be doing the display work the NVIDIA GPU should do: check `nvidia-smi` while the test runs, plug the laptop in, and choose the high-performance GPU for Python.</source>
        <translation>可能有其他程序正在使用 GPU，显卡可能处于节能状态或因过热而降频，或者（笔记本电脑）可能由集成显卡承担了本应由 NVIDIA GPU 完成的显示工作：请在测试运行时检查 `nvidia-smi`，为笔记本电脑接通电源，并为 Python 选择高性能 GPU。</translation>
    </message>
    <message>
        <source>{library} could not be loaded (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): the program found no {library} library on the library path, or an incompatible copy of it.</source>
        <translation>无法加载 {library}（&apos;Invalid handle. Cannot load symbol {symbol}&apos;）：程序在库搜索路径中找不到 {library} 库，或找到的是不兼容的副本。</translation>
    </message>
    <message>
        <source>Programs that load {library} at run time (faster-whisper and CTranslate2, ONNX Runtime, PyTorch) look for it on the library path. Where it came with pip ({wheel}; &apos;pip show {wheel}&apos; tells), put its folder there in the same environment before starting the program: &apos;export LD_LIBRARY_PATH=&quot;$(python -c &quot;import {module}; print({module}.__path__[0])&quot;)/lib:$LD_LIBRARY_PATH&quot;&apos;; otherwise install it (&apos;pip install {wheel}&apos;, or NVIDIA&apos;s packages). An LD_LIBRARY_PATH entry that points at another CUDA&apos;s copy (an older /usr/local/cuda, an AppImage&apos;s folder) loads the wrong one: remove it.</source>
        <translation>在运行时加载 {library} 的程序（faster-whisper 和 CTranslate2、ONNX Runtime、PyTorch）会在库搜索路径中查找它。如果它来自 pip（{wheel}；&apos;pip show {wheel}&apos; 可确认），请在同一环境中、启动程序之前把它的文件夹加入该路径：&apos;export LD_LIBRARY_PATH=&quot;$(python -c &quot;import {module}; print({module}.__path__[0])&quot;)/lib:$LD_LIBRARY_PATH&quot;&apos;；否则请安装它（&apos;pip install {wheel}&apos;，或 NVIDIA 的软件包）。指向另一个 CUDA 副本的 LD_LIBRARY_PATH 条目（较旧的 /usr/local/cuda、AppImage 的文件夹）会加载错误的副本：请删除该条目。</translation>
    </message>
    <message>
        <source>{library} could not be loaded (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): the program found no {library} DLL on its search path, or an incompatible copy of it.</source>
        <translation>无法加载 {library}（&apos;Invalid handle. Cannot load symbol {symbol}&apos;）：程序在其搜索路径中找不到 {library} 的 DLL，或找到的是不兼容的副本。</translation>
    </message>
    <message>
        <source>Programs that load {library} at run time (faster-whisper and CTranslate2, ONNX Runtime, PyTorch) look for its DLLs on PATH. Where it came with pip ({wheel}; &apos;pip show {wheel}&apos; tells), put its bin folder on PATH in the same terminal before starting the program (PowerShell: $env:PATH = &quot;$(python -c &apos;import {module}; print({module}.__path__[0])&apos;)\bin;$env:PATH&quot;); otherwise install it (&apos;pip install {wheel}&apos;, or NVIDIA&apos;s installer with its bin folder on PATH). A PATH entry that points at another CUDA&apos;s copy loads the wrong one: move it after this one.</source>
        <translation>在运行时加载 {library} 的程序（faster-whisper 和 CTranslate2、ONNX Runtime、PyTorch）会在 PATH 中查找它的 DLL。如果它来自 pip（{wheel}；&apos;pip show {wheel}&apos; 可确认），请在同一终端中、启动程序之前把它的 bin 文件夹加入 PATH（PowerShell：$env:PATH = &quot;$(python -c &apos;import {module}; print({module}.__path__[0])&apos;)\bin;$env:PATH&quot;）；否则请安装它（&apos;pip install {wheel}&apos;，或使用 NVIDIA 的安装程序并将其 bin 文件夹加入 PATH）。指向另一个 CUDA 副本的 PATH 条目会加载错误的副本：请把它移到此条目之后。</translation>
    </message>
    <message>
        <source>This llama.cpp or Ollama build has no CUDA kernels for this GPU: ggml&apos;s CUDA code stopped with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>此 llama.cpp 或 Ollama 构建版本没有适用于此 GPU 的 CUDA 内核：ggml 的 CUDA 代码因 &apos;no kernel image is available for execution on the device&apos; 错误而停止。</translation>
    </message>
    <message>
        <source>Ollama: update to the newest release, or go back to the last release that worked; a release can leave a GPU generation out (Ollama 0.11.11 picked CUDA 13 libraries without kernels for Pascal GPUs such as the GTX 10 series; 0.12.0 went back to CUDA 12 for them, ollama/ollama#12300). llama.cpp built yourself: build for this GPU, &apos;cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native&apos;. &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; shows the GPU&apos;s compute capability.</source>
        <translation>Ollama：请更新到最新版本，或退回到上一个可用的版本；某个版本可能会遗漏某一代 GPU（Ollama 0.11.11 选用的 CUDA 13 库不含适用于 Pascal GPU（如 GTX 10 系列）的内核；0.12.0 为这些 GPU 改回了 CUDA 12，ollama/ollama#12300）。自行构建的 llama.cpp：请针对此 GPU 构建，&apos;cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native&apos;。&apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; 可显示 GPU 的计算能力。</translation>
    </message>
    <message>
        <source>The NVIDIA driver changed since the last good state: {before} then, {after} now.</source>
        <translation>自上次正常状态以来，NVIDIA 驱动程序已变化：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>Nothing to do while the other checks pass: a newer driver runs every build an older one ran (NVIDIA CUDA Compatibility guide). A healthy verify records the new driver.</source>
        <translation>只要其他检查通过，就无需处理：新驱动程序可以运行旧驱动程序能运行的所有构建版本（见 NVIDIA CUDA 兼容性指南）。验证正常时会记录新的驱动程序。</translation>
    </message>
    <message>
        <source>The NVIDIA driver ({before} at the last good state) no longer answers.</source>
        <translation>NVIDIA 驱动程序（上次正常状态时为 {before}）已无响应。</translation>
    </message>
    <message>
        <source>The NVIDIA driver {driver} is too old for the framework build of {builds}.</source>
        <translation>NVIDIA 驱动程序 {driver} 过旧，无法运行 {builds} 的框架构建版本。</translation>
    </message>
    <message>
        <source>Fewer NVIDIA GPUs answer than at the last good state: {before} then, {after} now.</source>
        <translation>响应的 NVIDIA GPU 比上次正常状态时少：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>The NVIDIA GPUs changed since the last good state: {before} then, {after} now.</source>
        <translation>自上次正常状态以来，NVIDIA GPU 已变化：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>The Python interpreter of {env} ({python}) does not run any more: {error}</source>
        <translation>{env} 的 Python 解释器（{python}）已无法运行：{error}</translation>
    </message>
    <message>
        <source>The Python it was made from was probably removed or upgraded, or its folder was moved. Recreate the environment: {recreate}</source>
        <translation>创建它所用的 Python 可能已被删除或升级，或者其文件夹已被移动。请重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>The interpreter of {env} changed: {before} then, {after} now.</source>
        <translation>{env} 的解释器已变化：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>Nothing to do while the framework still imports: the Python it was made from got a patch release.</source>
        <translation>只要框架仍可导入，就无需处理：创建它所用的 Python 安装了补丁版本。</translation>
    </message>
    <message>
        <source>{framework} is no longer installed in {env}.</source>
        <translation>{env} 中已不再安装 {framework}。</translation>
    </message>
    <message>
        <source>Reinstall the recorded build: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>重新安装记录的构建版本：{reinstall}  或重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>{framework} no longer imports in {env}: {error}</source>
        <translation>{framework} 在 {env} 中已无法导入：{error}</translation>
    </message>
    <message>
        <source>A later install broke it. Reinstall the recorded build: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>后续的安装破坏了它。重新安装记录的构建版本：{reinstall}  或重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>A CPU build of {framework} was swapped in for the CUDA build in {env}: {before} then, {after} now; it cannot use the GPU.</source>
        <translation>{env} 中 {framework} 的 CUDA 版本被替换成了 CPU 版本：之前为 {before}，现在为 {after}；它无法使用 GPU。</translation>
    </message>
    <message>
        <source>Reinstall the CUDA build: {reinstall}  Or recreate the environment: {recreate}  Install other packages with the environment activated, so pip and uv read its constraints file and cannot swap the build again.</source>
        <translation>重新安装 CUDA 版本：{reinstall}  或重新创建环境：{recreate}  请在激活环境后再安装其他软件包，这样 pip 和 uv 会读取其约束文件，无法再次替换该构建版本。</translation>
    </message>
    <message>
        <source>{framework} in {env} changed from {before} to {after}, the build its constraints file pins.</source>
        <translation>{env} 中的 {framework} 已从 {before} 变为 {after}，即其约束文件锁定的构建版本。</translation>
    </message>
    <message>
        <source>Nothing to do while the live test passes: the new build was pinned on purpose.</source>
        <translation>只要实时测试通过，就无需处理：新构建版本是有意锁定的。</translation>
    </message>
    <message>
        <source>{framework} in {env} changed from {before} to {after}, which its constraints file does not allow.</source>
        <translation>{env} 中的 {framework} 已从 {before} 变为 {after}，这是其约束文件所不允许的。</translation>
    </message>
    <message>
        <source>Put the pinned build back: {reinstall}  Or, to keep the new build, recreate the environment with it: {recreate}</source>
        <translation>恢复锁定的构建版本：{reinstall}  或者，如要保留新构建版本，请用它重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>The constraints file of {env} is missing: {path}</source>
        <translation>{env} 的约束文件缺失：{path}</translation>
    </message>
    <message>
        <source>Without it nothing stops a later install from replacing the framework build, and the environment&apos;s pip fails because its configuration names the file. Write the line &apos;{pin}&apos; into {path}, or recreate the environment: {recreate}</source>
        <translation>没有该文件，就无法阻止后续安装替换框架构建版本；而且由于环境的 pip 配置中指定了该文件，pip 会运行失败。请将 &apos;{pin}&apos; 这一行写入 {path}，或重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>The constraints file of {env} no longer pins the framework: {path}</source>
        <translation>{env} 的约束文件已不再锁定框架：{path}</translation>
    </message>
    <message>
        <source>Nothing stops a later install from replacing the framework build. Add the line &apos;{pin}&apos; to {path}, or recreate the environment: {recreate}</source>
        <translation>无法阻止后续安装替换框架构建版本。请将 &apos;{pin}&apos; 这一行添加到 {path}，或重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>{tool} in {env} does not read its constraints file {path}: {source} {why}.</source>
        <translation>{env} 中的 {tool} 没有读取其约束文件 {path}：{source} {why}。</translation>
    </message>
    <message>
        <source>Until it does, a later install fails or may replace the framework build. Recreate the environment: {recreate}  Or write {reference} in {source}.</source>
        <translation>在此之前，后续安装会失败，或可能替换框架构建版本。请重新创建环境：{recreate}  或将 {reference} 写入 {source}。</translation>
    </message>
    <message>
        <source>The constraints file of {env} pins {pin}, but {installed} is installed.</source>
        <translation>{env} 的约束文件锁定为 {pin}，但安装的是 {installed}。</translation>
    </message>
    <message>
        <source>Reinstall the pinned build: {reinstall}  Or, to keep the installed build, change the line in {path} to &apos;{wanted}&apos;.</source>
        <translation>重新安装锁定的构建版本：{reinstall}  或者，如要保留已安装的构建版本，请将 {path} 中的该行改为 &apos;{wanted}&apos;。</translation>
    </message>
    <message>
        <source>The constraints file of {env} changed its pin: {before} then, {after} now.</source>
        <translation>{env} 的约束文件更改了锁定版本：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>Nothing to do while the installed build matches it and the live test passes ({path}).</source>
        <translation>只要已安装的构建版本与之相符且实时测试通过，就无需处理（{path}）。</translation>
    </message>
    <message>
        <source>{framework} in {env} sees fewer GPUs than at the last good state: {before} then, {after} now.</source>
        <translation>{env} 中的 {framework} 识别到的 GPU 比上次正常状态时少：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>The short live test in {env} gave {after}; at the last good state it gave {before}.</source>
        <translation>{env} 中的简短实时测试结果为 {after}；上次正常状态时为 {before}。</translation>
    </message>
    <message>
        <source>The short live test in {env} gave {after}.</source>
        <translation>{env} 中的简短实时测试结果为 {after}。</translation>
    </message>
    <message>
        <source>The GPU in {env} still trains, but no longer clearly faster than the CPU ({before} then, {after} now).</source>
        <translation>{env} 中的 GPU 仍可训练，但已不再明显快于 CPU（之前为 {before}，现在为 {after}）。</translation>
    </message>
    <message>
        <source>NVIDIA CUDA wheels that {env} had at the last good state are no longer installed: {wheels}.</source>
        <translation>{env} 在上次正常状态时具有的 NVIDIA CUDA wheel 已不再安装：{wheels}。</translation>
    </message>
    <message>
        <source>The framework loads its CUDA libraries from them and cannot use the GPU without them. Put them back: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>框架从这些 wheel 加载其 CUDA 库，缺少它们就无法使用 GPU。恢复这些 wheel：{reinstall}  或重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>NVIDIA CUDA wheels in {env} were replaced by another major version: {before} then, {after} now.</source>
        <translation>{env} 中的 NVIDIA CUDA wheel 已被替换为另一个主版本：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>A framework build loads only the CUDA and cuDNN major versions it was built for (a cuDNN 8 build does not load cuDNN 9). Put the recorded ones back: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>框架构建版本只加载其构建时所针对的 CUDA 和 cuDNN 主版本（针对 cuDNN 8 的构建版本不会加载 cuDNN 9）。恢复记录的版本：{reinstall}  或重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>NVIDIA CUDA wheels in {env} changed within their major version: {before} then, {after} now.</source>
        <translation>{env} 中的 NVIDIA CUDA wheel 在主版本内发生了变化：之前为 {before}，现在为 {after}。</translation>
    </message>
    <message>
        <source>A newer release of the same major version usually keeps working; an older one may not. If the short live test fails, put the recorded versions back: {reinstall}</source>
        <translation>同一主版本的较新发行版通常仍可正常工作；较旧的则不一定。如果简短实时测试失败，请恢复记录的版本：{reinstall}</translation>
    </message>
    <message>
        <source>The start-up hook that makes the NVIDIA wheels&apos; DLLs visible to the Python of {env} is gone.</source>
        <translation>使 NVIDIA wheel 的 DLL 对 {env} 的 Python 可见的启动钩子已不存在。</translation>
    </message>
    <message>
        <source>Without it TensorFlow finds no CUDA DLL when this environment&apos;s Python starts, unless the folders are on PATH. Recreate the environment, which writes the hook again: {recreate}</source>
        <translation>没有它，此环境的 Python 启动时 TensorFlow 将找不到任何 CUDA DLL，除非这些文件夹在 PATH 中。请重新创建环境，这会重新写入该钩子：{recreate}</translation>
    </message>
    <message>
        <source>The start-up hook of {env} no longer puts the NVIDIA wheels&apos; DLL folders on the search path: {reason}</source>
        <translation>{env} 的启动钩子不再将 NVIDIA wheel 的 DLL 文件夹加入搜索路径：{reason}</translation>
    </message>
    <message>
        <source>Without them TensorFlow finds no CUDA DLL when this environment&apos;s Python starts. Recreate the environment: {recreate}</source>
        <translation>没有这些文件夹，此环境的 Python 启动时 TensorFlow 将找不到任何 CUDA DLL。请重新创建环境：{recreate}</translation>
    </message>
    <message>
        <source>{folder}, which the wizard added to the {scope} PATH, is no longer on it.</source>
        <translation>向导添加到 {scope} PATH 中的 {folder} 已不在其中。</translation>
    </message>
    <message>
        <source>{folder} was removed from the {scope} PATH with gpuwizard after the last good state.</source>
        <translation>上次正常状态之后，已使用 gpuwizard 将 {folder} 从 {scope} PATH 中删除。</translation>
    </message>
    <message>
        <source>Nothing to do if that was meant; to add it back: {command}</source>
        <translation>如果这是有意为之，则无需处理；如要重新添加：{command}</translation>
    </message>
    <message>
        <source>{env} passed its live test, but it could not be recorded as the last good state: {error}</source>
        <translation>{env} 已通过实时测试，但无法将其记录为上次正常状态：{error}</translation>
    </message>
    <message>
        <source>The setup works as it is. Make the wizard&apos;s folder writable again (free space, or its permissions), then run &apos;gpuwizard test --env {env}&apos;: a passed test records it, and &apos;gpuwizard verify&apos; compares with it from then on.</source>
        <translation>当前配置可以正常工作。请让向导的文件夹恢复可写（释放空间或调整其权限），然后运行 &apos;gpuwizard test --env {env}&apos;：测试通过后会记录该状态，此后 &apos;gpuwizard verify&apos; 将与之进行比较。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: {detail}.</source>
        <translation>无法访问软件包索引 {index}：{detail}。</translation>
    </message>
    <message>
        <source>If this network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>如果此网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY），pip 和 uv 会读取这些变量。或者使用此网络可以访问的该索引镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: the name {host} cannot be looked up (DNS).</source>
        <translation>无法访问软件包索引 {index}：无法解析名称 {host}（DNS）。</translation>
    </message>
    <message>
        <source>This network&apos;s name server does not know {host}, or blocks it. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>此网络的 DNS 服务器无法解析 {host}，或将其屏蔽。如果网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY），pip 和 uv 会读取这些变量。或者使用此网络可以访问的该索引镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: {host} refused the connection.</source>
        <translation>无法访问软件包索引 {index}：{host} 拒绝了连接。</translation>
    </message>
    <message>
        <source>Nothing accepts connections at that address, or a firewall rejects them. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>该地址上没有任何服务接受连接，或者防火墙拒绝了连接。如果网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY），pip 和 uv 会读取这些变量。或者使用此网络可以访问的该索引镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: {host} did not answer in time.</source>
        <translation>无法访问软件包索引 {index}：{host} 未及时响应。</translation>
    </message>
    <message>
        <source>A firewall may drop the traffic without a word, or the network is very slow. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>防火墙可能在没有任何提示的情况下丢弃了流量，或者网络非常慢。如果网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY），pip 和 uv 会读取这些变量。或者使用此网络可以访问的该索引镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: there is no network route to {host}.</source>
        <translation>无法访问软件包索引 {index}：没有通往 {host} 的网络路由。</translation>
    </message>
    <message>
        <source>This machine is offline, or its network does not lead there. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>本机处于离线状态，或者其网络无法通往该地址。如果网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY），pip 和 uv 会读取这些变量。或者使用此网络可以访问的该索引镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached safely: the certificate {host} showed cannot be verified (TLS).</source>
        <translation>无法安全访问软件包索引 {index}：无法验证 {host} 出示的证书（TLS）。</translation>
    </message>
    <message>
        <source>Company networks often inspect encrypted traffic with a certificate authority of their own. Give its certificate (a PEM file from your IT department) to the tools: SSL_CERT_FILE for uv (or UV_NATIVE_TLS=1 to use the system&apos;s certificates), PIP_CERT for pip, REQUESTS_CA_BUNDLE for the wizard&apos;s own check. Do not turn certificate checks off: an index decides what code is installed. Or use a mirror of this index (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>企业网络通常会使用自己的证书颁发机构检查加密流量。请将该证书（由 IT 部门提供的 PEM 文件）提供给各工具：uv 使用 SSL_CERT_FILE（或设置 UV_NATIVE_TLS=1 以使用系统证书），pip 使用 PIP_CERT，向导自身的检查使用 REQUESTS_CA_BUNDLE。请勿关闭证书验证：索引决定了安装哪些代码。或者使用该索引的镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: the proxy {proxy} does not let the request through.</source>
        <translation>无法访问软件包索引 {index}：代理 {proxy} 未放行该请求。</translation>
    </message>
    <message>
        <source>Check the proxy settings HTTPS_PROXY, HTTP_PROXY and NO_PROXY: the proxy&apos;s address and port, and whether it runs. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>请检查代理设置 HTTPS_PROXY、HTTP_PROXY 和 NO_PROXY：代理的地址和端口，以及代理是否在运行。或者使用此网络可以访问的该索引镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: the proxy {proxy} asks for a login (HTTP 407).</source>
        <translation>无法访问软件包索引 {index}：代理 {proxy} 要求登录（HTTP 407）。</translation>
    </message>
    <message>
        <source>Put the login in the proxy&apos;s address, as pip and uv read it: HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT (your IT department knows the proxy). Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>请按 pip 和 uv 读取的格式，将登录信息写入代理地址：HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT（IT 部门了解该代理的信息）。或者使用此网络可以访问的该索引镜像（将 {setting} 设为其地址），或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>The package index {index} answered HTTP {status} when asked for {project}.</source>
        <translation>向软件包索引 {index} 请求 {project} 时，它返回了 HTTP {status}。</translation>
    </message>
    <message>
        <source>The index answers but does not serve {project} there: the address may be wrong, a mirror may not carry it, or it needs a login (401, 403). Check {setting}, or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>该索引有响应，但在该地址未提供 {project}：地址可能有误，镜像可能未收录它，或者需要登录（401、403）。请检查 {setting}，或者从 wheel 文件夹安装（gpuwizard env create NAME --find-links DIR --offline；或在“选择”页面中选择 wheel 文件夹）。</translation>
    </message>
    <message>
        <source>{index} cannot be reached ({detail}), so the new environment will have no pip.</source>
        <translation>无法访问 {index}（{detail}），因此新环境中将没有 pip。</translation>
    </message>
    <message>
        <source>Only pip comes from there: the framework comes from the plan&apos;s own index. Without pip, install more packages with &apos;uv pip install --python ENV_PYTHON PACKAGE&apos;; or set {setting} to a mirror this network reaches.</source>
        <translation>只有 pip 来自该处：框架来自方案自身的索引。没有 pip 时，可使用 &apos;uv pip install --python ENV_PYTHON PACKAGE&apos; 安装更多软件包；或者将 {setting} 设为此网络可以访问的镜像。</translation>
    </message>
    <message>
        <source>PyPI has the same release, PyTorch {version}, as its {build} build, which uses this machine&apos;s GPU too.</source>
        <translation>PyPI 上也有同一版本 PyTorch {version}，即其 {build} 版本，它同样可以使用本机的 GPU。</translation>
    </message>
    <message>
        <source>PyPI has the same release, PyTorch {version}, as its {build} build: a CUDA build that runs on the CPU too, but downloads several GB more (the NVIDIA libraries come as separate packages).</source>
        <translation>PyPI 上也有同一版本 PyTorch {version}，即其 {build} 版本：这是一个也能在 CPU 上运行的 CUDA 版本，但下载量要多出数 GB（NVIDIA 库以单独的软件包提供）。</translation>
    </message>
    <message>
        <source>Python {python} for the new environment cannot be downloaded from {url}: {detail}.</source>
        <translation>无法从 {url} 为新环境下载 Python {python}：{detail}。</translation>
    </message>
    <message>
        <source>No Python {python} is installed here, so uv would download one from {host}. Install Python {python} yourself from your distribution&apos;s packages, then run the same command again: the wizard then uses it and downloads no Python. Or set UV_PYTHON_INSTALL_MIRROR to a mirror of python-build-standalone&apos;s releases that this network reaches, or HTTPS_PROXY (and NO_PROXY) if the network needs a proxy.</source>
        <translation>此处未安装 Python {python}，因此 uv 会从 {host} 下载一个。请自行用发行版的软件包安装 Python {python}，然后再次运行同一命令：向导会使用它，不再下载 Python。或者将 UV_PYTHON_INSTALL_MIRROR 设置为本网络可访问的 python-build-standalone 发布镜像；如果网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY）。</translation>
    </message>
    <message>
        <source>No Python {python} is installed here, so uv would download one from {host}. Install Python {python} yourself, then run the same command again: with the Python install manager, py install {python}; or with the installer from https://www.python.org/downloads/windows/. The wizard then uses it and downloads no Python. Or set UV_PYTHON_INSTALL_MIRROR to a mirror of python-build-standalone&apos;s releases that this network reaches, or HTTPS_PROXY (and NO_PROXY) if the network needs a proxy.</source>
        <translation>此处未安装 Python {python}，因此 uv 会从 {host} 下载一个。请自行安装 Python {python}，然后再次运行同一命令：使用 Python 安装管理器运行 py install {python}；或使用 https://www.python.org/downloads/windows/ 的安装程序。向导会使用它，不再下载 Python。或者将 UV_PYTHON_INSTALL_MIRROR 设置为本网络可访问的 python-build-standalone 发布镜像；如果网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY）。</translation>
    </message>
    <message>
        <source>No Python {python} is installed here, so uv would download one from {host}. Install Python {python} yourself with the installer from https://www.python.org/downloads/macos/, then run the same command again: the wizard then uses it and downloads no Python. Or set UV_PYTHON_INSTALL_MIRROR to a mirror of python-build-standalone&apos;s releases that this network reaches, or HTTPS_PROXY (and NO_PROXY) if the network needs a proxy.</source>
        <translation>此处未安装 Python {python}，因此 uv 会从 {host} 下载一个。请使用 https://www.python.org/downloads/macos/ 的安装程序自行安装 Python {python}，然后再次运行同一命令：向导会使用它，不再下载 Python。或者将 UV_PYTHON_INSTALL_MIRROR 设置为本网络可访问的 python-build-standalone 发布镜像；如果网络需要代理，请设置 HTTPS_PROXY（以及 NO_PROXY）。</translation>
    </message>
    <message>
        <source>The folder of wheels {folder} is looked at beside the index, not instead of it.</source>
        <translation>wheel 文件夹 {folder} 会与索引一起使用，而不是取代索引。</translation>
    </message>
    <message>
        <source>Add --offline to install from the folder alone (on the Choose page: only from this folder), when it holds the plan&apos;s build and all its dependencies for this Python.</source>
        <translation>如果该文件夹包含方案所需的版本及其适用于此 Python 的全部依赖项，可添加 --offline 以仅从该文件夹安装（在“选择”页面中：仅从此文件夹）。</translation>
    </message>
    <message>
        <source>NVML could not start (&apos;Failed to initialize NVML: Unknown Error&apos;): in a container or pod this means it has lost access to the GPU devices.</source>
        <translation>NVML 无法启动（&apos;Failed to initialize NVML: Unknown Error&apos;）：在容器或 pod 中，这表示它已失去对 GPU 设备的访问权限。</translation>
    </message>
    <message>
        <source>If nvidia-smi works on the host, recreate the container or pod to get the GPU back: when systemd manages the container&apos;s cgroups, &apos;systemctl daemon-reload&apos; (also run by package updates) drops its device access. To stop it happening again, as NVIDIA&apos;s Container Toolkit troubleshooting says: give GPUs through CDI (&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos;, then &apos;docker run --device nvidia.com/gpu=all&apos;), or create the device links (&apos;sudo nvidia-ctk system create-dev-char-symlinks --create-all&apos;), or set Docker&apos;s cgroup driver to cgroupfs (&apos;&quot;exec-opts&quot;: [&quot;native.cgroupdriver=cgroupfs&quot;]&apos; in /etc/docker/daemon.json) and restart Docker. If nvidia-smi fails on the host too, reinstall the NVIDIA driver and restart.</source>
        <translation>如果主机上的 nvidia-smi 正常工作，请重新创建容器或 pod 以恢复 GPU：当 systemd 管理容器的 cgroups 时，&apos;systemctl daemon-reload&apos;（软件包更新也会运行它）会使容器失去设备访问权限。要防止再次发生，请按照 NVIDIA Container Toolkit 故障排除文档的说明：通过 CDI 提供 GPU（&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos;，然后 &apos;docker run --device nvidia.com/gpu=all&apos;），或创建设备链接（&apos;sudo nvidia-ctk system create-dev-char-symlinks --create-all&apos;），或将 Docker 的 cgroup 驱动设置为 cgroupfs（在 /etc/docker/daemon.json 中设置 &apos;&quot;exec-opts&quot;: [&quot;native.cgroupdriver=cgroupfs&quot;]&apos;）并重启 Docker。如果主机上的 nvidia-smi 也失败，请重新安装 NVIDIA 驱动程序并重启。</translation>
    </message>
    <message>
        <source>Docker cannot give the container a GPU (&apos;could not select device driver ... with capabilities: [[gpu]]&apos;): the NVIDIA Container Toolkit is missing or Docker is not set up to use it.</source>
        <translation>Docker 无法为容器提供 GPU（&apos;could not select device driver ... with capabilities: [[gpu]]&apos;）：缺少 NVIDIA Container Toolkit，或 Docker 未配置为使用它。</translation>
    </message>
    <message>
        <source>Install the NVIDIA Container Toolkit on the host (package nvidia-container-toolkit, from NVIDIA&apos;s repository as its install guide says), then register it with Docker and restart Docker: &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and &apos;sudo systemctl restart docker&apos;. Check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. On Windows, Docker Desktop uses the GPU through WSL 2: update Docker Desktop and the NVIDIA driver on Windows.</source>
        <translation>请在主机上安装 NVIDIA Container Toolkit（软件包 nvidia-container-toolkit，按其安装指南从 NVIDIA 的软件源安装），然后将其注册到 Docker 并重启 Docker：&apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; 和 &apos;sudo systemctl restart docker&apos;。使用 &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos; 进行检查。在 Windows 上，Docker Desktop 通过 WSL 2 使用 GPU：请更新 Docker Desktop 和 Windows 上的 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>Windows ran out of memory to commit ([WinError 1455]: the paging file is too small for this operation).</source>
        <translation>Windows 的可提交内存已耗尽（[WinError 1455]：页面文件太小，无法完成操作）。</translation>
    </message>
    <message>
        <source>This is not a missing DLL: loading the CUDA libraries needs more memory than RAM and the page file allow. Start fewer processes that load PyTorch: lower the DataLoader&apos;s num_workers (to 2, or 0), and close other programs. Or let Windows manage a larger page file on a drive with free space (System Properties &gt; Advanced &gt; Performance Settings &gt; Advanced &gt; Virtual memory; &apos;System managed size&apos;, or at least the size of the RAM), then restart.</source>
        <translation>这并不是缺少 DLL：加载 CUDA 库所需的内存超过了 RAM 和页面文件允许的大小。请减少加载 PyTorch 的进程数：降低 DataLoader 的 num_workers（降到 2 或 0），并关闭其他程序。或者让 Windows 在有可用空间的驱动器上管理更大的页面文件（系统属性 &gt; 高级 &gt; 性能设置 &gt; 高级 &gt; 虚拟内存；选择“系统管理的大小”，或至少设为 RAM 的大小），然后重启。</translation>
    </message>
    <message>
        <source>XLA (TensorFlow, JAX) found no ptxas to compile its GPU kernels (&apos;No PTX compilation provider&apos; or no suitable ptxas).</source>
        <translation>XLA（TensorFlow、JAX）找不到用于编译其 GPU 内核的 ptxas（&apos;No PTX compilation provider&apos; 或没有合适的 ptxas）。</translation>
    </message>
    <message>
        <source>Install the CUDA compiler wheel for the CUDA of your framework build: &apos;pip install nvidia-cuda-nvcc-cu12&apos; for CUDA 12 (brought by &apos;pip install -U &quot;jax[cuda12]&quot;&apos; and &apos;pip install tensorflow[and-cuda]&apos;), or a CUDA toolkit whose ptxas knows your GPU (CUDA 12.8 or newer for an RTX 50-series GPU, sm_120), and put its bin folder on PATH (or set XLA_FLAGS=--xla_gpu_cuda_data_dir=CUDA_FOLDER).</source>
        <translation>请安装与框架构建版本的 CUDA 对应的 CUDA 编译器 wheel：CUDA 12 使用 &apos;pip install nvidia-cuda-nvcc-cu12&apos;（&apos;pip install -U &quot;jax[cuda12]&quot;&apos; 和 &apos;pip install tensorflow[and-cuda]&apos; 会带上它），或安装其 ptxas 支持你的 GPU 的 CUDA toolkit（RTX 50 系列 GPU（sm_120）需要 CUDA 12.8 或更高版本），并将其 bin 文件夹加入 PATH（或设置 XLA_FLAGS=--xla_gpu_cuda_data_dir=CUDA_FOLDER）。</translation>
    </message>
    <message>
        <source>The ptxas that XLA (TensorFlow, JAX) uses is too old for the framework build or the GPU.</source>
        <translation>XLA（TensorFlow、JAX）使用的 ptxas 对于该框架构建版本或 GPU 来说太旧。</translation>
    </message>
    <message>
        <source>XLA takes the first ptxas it finds, often an old CUDA toolkit&apos;s on PATH. Install the CUDA compiler wheel for the CUDA of your framework build (&apos;pip install -U nvidia-cuda-nvcc-cu12&apos; for CUDA 12, brought by &apos;jax[cuda12]&apos; and &apos;tensorflow[and-cuda]&apos;), or a CUDA toolkit at least as new as the framework&apos;s CUDA (12.8 or newer for an RTX 50-series GPU, sm_120), and put its bin folder first on PATH, before the old toolkit&apos;s.</source>
        <translation>XLA 会使用它找到的第一个 ptxas，通常是 PATH 中某个旧 CUDA toolkit 的 ptxas。请安装与框架构建版本的 CUDA 对应的 CUDA 编译器 wheel（CUDA 12 使用 &apos;pip install -U nvidia-cuda-nvcc-cu12&apos;，&apos;jax[cuda12]&apos; 和 &apos;tensorflow[and-cuda]&apos; 会带上它），或安装至少与框架的 CUDA 一样新的 CUDA toolkit（RTX 50 系列 GPU（sm_120）需要 12.8 或更高版本），并将其 bin 文件夹放在 PATH 的最前面，位于旧 toolkit 之前。</translation>
    </message>
    <message>
        <source>PyTorch was built with cuDNN {compiled}, but another cuDNN, {loaded}, was loaded first.</source>
        <translation>PyTorch 是使用 cuDNN {compiled} 构建的，但另一个 cuDNN（{loaded}）先被加载了。</translation>
    </message>
    <message>
        <source>PyTorch brings its own cuDNN (the nvidia-cudnn wheel it installed, or torch/lib in older wheels); a system or conda cuDNN on the library search path shadows it. Remove that cuDNN&apos;s folder from LD_LIBRARY_PATH (PATH on Windows) for this environment, or unset LD_LIBRARY_PATH, then start Python again. If the nvidia-cudnn wheel is missing, reinstall torch from the same index it came from. Only a cuDNN {major}.x at least as new as {compiled} can replace the bundled one.</source>
        <translation>PyTorch 自带 cuDNN（它安装的 nvidia-cudnn wheel，或旧版 wheel 中的 torch/lib）；库搜索路径上的系统或 conda cuDNN 会覆盖它。请从此环境的 LD_LIBRARY_PATH（Windows 上为 PATH）中移除该 cuDNN 的文件夹，或取消设置 LD_LIBRARY_PATH，然后重新启动 Python。如果缺少 nvidia-cudnn wheel，请从 torch 原来的索引重新安装 torch。只有至少与 {compiled} 一样新的 cuDNN {major}.x 才能替换自带的版本。</translation>
    </message>
    <message>
        <source>PyTorch found no NVIDIA driver, so it cannot use a GPU here.</source>
        <translation>PyTorch 找不到 NVIDIA 驱动程序，因此无法在此使用 GPU。</translation>
    </message>
    <message>
        <source>If this computer has an NVIDIA GPU, install its driver from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;) and restart; &apos;nvidia-smi&apos; must then list the GPU. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;, which needs the NVIDIA Container Toolkit on the host); in WSL 2, install the driver on Windows, not inside WSL. Without an NVIDIA GPU (a Mac, Intel or AMD graphics), run on the CPU: use the device &apos;cpu&apos; instead of &apos;cuda&apos; or &apos;.cuda()&apos;.</source>
        <translation>如果这台计算机有 NVIDIA GPU，请从 https://www.nvidia.com/Download/index.aspx 安装其驱动（Ubuntu 上：&apos;sudo ubuntu-drivers install&apos;）并重启；之后 &apos;nvidia-smi&apos; 应列出该 GPU。在容器中，请以 GPU 访问方式启动容器（&apos;docker run --gpus all ...&apos;，主机上需要 NVIDIA Container Toolkit）；在 WSL 2 中，请在 Windows 上安装驱动，而不是在 WSL 内。没有 NVIDIA GPU（Mac、Intel 或 AMD 显卡）时，请在 CPU 上运行：使用设备 &apos;cpu&apos; 而不是 &apos;cuda&apos; 或 &apos;.cuda()&apos;。</translation>
    </message>
    <message>
        <source>torchvision does not fit the installed torch: its compiled operators ({operator}) did not load.</source>
        <translation>torchvision 与已安装的 torch 不匹配：其编译的算子（{operator}）未能加载。</translation>
    </message>
    <message>
        <source>torch and torchvision are released in pairs (torch 2.5 with torchvision 0.20, 2.6 with 0.21, and so on) and must come from the same build variant (CPU, cu121, cu126, ...). Install the torchvision paired with your torch from the same index, for example &apos;pip install torch==X torchvision==Y --index-url https://download.pytorch.org/whl/cu126&apos;, or reinstall both together; check with &apos;pip list&apos; that only one torch is installed.</source>
        <translation>torch 和 torchvision 是成对发布的（torch 2.5 对应 torchvision 0.20，2.6 对应 0.21，依此类推），并且必须来自同一构建变体（CPU、cu121、cu126……）。请从同一索引安装与你的 torch 配对的 torchvision，例如 &apos;pip install torch==X torchvision==Y --index-url https://download.pytorch.org/whl/cu126&apos;，或同时重新安装两者；并用 &apos;pip list&apos; 检查是否只安装了一个 torch。</translation>
    </message>
    <message>
        <source>cuBLAS could not start on the GPU ({status}): almost always, GPU memory ran out.</source>
        <translation>cuBLAS 无法在 GPU 上启动（{status}）：几乎总是因为 GPU 显存耗尽。</translation>
    </message>
    <message>
        <source>Free GPU memory: close other programs or notebooks that hold it (&apos;nvidia-smi&apos; lists them), use a smaller batch size or model, or load the model in half precision. With several GPUs, pick one with free memory (CUDA_VISIBLE_DEVICES). If memory is free, check that the framework build fits the GPU and driver.</source>
        <translation>请释放 GPU 显存：关闭占用显存的其他程序或 notebook（&apos;nvidia-smi&apos; 会列出它们），使用更小的批大小或模型，或以半精度加载模型。如果有多个 GPU，请选择一个有空闲显存的 GPU（CUDA_VISIBLE_DEVICES）。如果显存充足，请检查框架构建版本是否适合该 GPU 和驱动程序。</translation>
    </message>
    <message>
        <source>TensorFlow could not create a cuBLAS handle ({status}): almost always, GPU memory ran out.</source>
        <translation>TensorFlow 无法创建 cuBLAS 句柄（{status}）：几乎总是因为 GPU 显存耗尽。</translation>
    </message>
    <message>
        <source>TensorFlow reserves nearly all GPU memory at start, leaving none for cuBLAS. Enable memory growth before building the model: &apos;tf.config.experimental.set_memory_growth(gpu, True)&apos; for each GPU, or set TF_FORCE_GPU_ALLOW_GROWTH=true. Also close other programs that use the GPU (&apos;nvidia-smi&apos; lists them) and try a smaller batch size.</source>
        <translation>TensorFlow 在启动时会占用几乎全部 GPU 显存，没有为 cuBLAS 留下任何显存。请在构建模型之前启用显存按需增长：对每个 GPU 调用 &apos;tf.config.experimental.set_memory_growth(gpu, True)&apos;，或设置 TF_FORCE_GPU_ALLOW_GROWTH=true。另外请关闭其他使用 GPU 的程序（&apos;nvidia-smi&apos; 会列出它们），并尝试更小的批大小。</translation>
    </message>
    <message>
        <source>The container was started without GPU access: its NVIDIA image says &apos;The NVIDIA Driver was not detected&apos;, so GPU functionality is not available inside it.</source>
        <translation>容器启动时没有 GPU 访问权限：其 NVIDIA 镜像提示 &apos;The NVIDIA Driver was not detected&apos;，因此容器内无法使用 GPU 功能。</translation>
    </message>
    <message>
        <source>Start the container with the GPU: &apos;docker run --gpus all IMAGE&apos; (or &apos;--device nvidia.com/gpu=all&apos; with CDI). In docker compose, give the service a device reservation: under deploy: resources: reservations: devices: an entry with &apos;driver: nvidia&apos;, &apos;count: all&apos; and &apos;capabilities: [gpu]&apos;. The host needs the NVIDIA driver and the NVIDIA Container Toolkit; check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. With Docker Desktop on Windows, use the WSL 2 backend and a current NVIDIA driver on Windows.</source>
        <translation>请启动带 GPU 的容器：&apos;docker run --gpus all IMAGE&apos;（使用 CDI 时为 &apos;--device nvidia.com/gpu=all&apos;）。在 docker compose 中，为服务添加设备预留：在 deploy: resources: reservations: devices: 下添加一个包含 &apos;driver: nvidia&apos;、&apos;count: all&apos; 和 &apos;capabilities: [gpu]&apos; 的条目。主机需要安装 NVIDIA 驱动和 NVIDIA Container Toolkit；可用 &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos; 检查。在 Windows 上使用 Docker Desktop 时，请使用 WSL 2 后端，并在 Windows 上安装最新的 NVIDIA 驱动。</translation>
    </message>
    <message>
        <source>The container was started without GPU access (&apos;docker run&apos; without &apos;--gpus&apos;): nvidia-smi inside it cannot reach the NVIDIA driver, whatever the host has.</source>
        <translation>容器启动时没有 GPU 访问权限（&apos;docker run&apos; 未加 &apos;--gpus&apos;）：无论主机上有什么，容器内的 nvidia-smi 都无法访问 NVIDIA 驱动。</translation>
    </message>
    <message>
        <source>The container was started with a GPU option, yet its NVIDIA image saw no driver (&apos;The NVIDIA Driver was not detected&apos;).</source>
        <translation>容器启动时使用了 GPU 选项，但其 NVIDIA 镜像没有检测到驱动（&apos;The NVIDIA Driver was not detected&apos;）。</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos; inside the container. If it lists the GPU, the message is wrong and can be ignored: older NVIDIA images print it under WSL 2 although the GPU works (newer images no longer do). If it fails, the host does not pass its driver in: check &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;, reinstall the NVIDIA Container Toolkit, run &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and restart Docker. With Docker Desktop on Windows, update Docker Desktop and the NVIDIA driver on Windows; on Linux, Docker installed as a snap or Docker Desktop&apos;s VM cannot use the host&apos;s driver (use Docker Engine).</source>
        <translation>请在容器内运行 &apos;nvidia-smi&apos;。如果它列出了 GPU，说明该消息有误，可以忽略：旧版 NVIDIA 镜像在 WSL 2 下即使 GPU 正常工作也会打印此消息（新版镜像已不再如此）。如果运行失败，说明主机没有把驱动传入容器：请用 &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos; 检查，重新安装 NVIDIA Container Toolkit，运行 &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; 并重启 Docker。在 Windows 上使用 Docker Desktop 时，请更新 Docker Desktop 和 Windows 上的 NVIDIA 驱动；在 Linux 上，以 snap 方式安装的 Docker 或 Docker Desktop 的虚拟机无法使用主机的驱动（请使用 Docker Engine）。</translation>
    </message>
    <message>
        <source>The NVIDIA Container Toolkit could not give the container its GPU (nvidia-container-cli: {stage}: {detail}).</source>
        <translation>NVIDIA Container Toolkit 无法为容器提供 GPU（nvidia-container-cli: {stage}: {detail}）。</translation>
    </message>
    <message>
        <source>Check the host first: &apos;nvidia-smi&apos; must work there. Then reinstall or update the NVIDIA Container Toolkit (package nvidia-container-toolkit), run &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and &apos;sudo systemctl restart docker&apos;, and check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. For details, run &apos;nvidia-container-cli -k -d /dev/tty info&apos; on the host.</source>
        <translation>请先检查主机：&apos;nvidia-smi&apos; 必须能在主机上正常运行。然后重新安装或更新 NVIDIA Container Toolkit（软件包 nvidia-container-toolkit），运行 &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; 和 &apos;sudo systemctl restart docker&apos;，再用 &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos; 检查。如需详细信息，请在主机上运行 &apos;nvidia-container-cli -k -d /dev/tty info&apos;。</translation>
    </message>
    <message>
        <source>The NVIDIA Container Toolkit could not load the host&apos;s NVIDIA driver library ({library}), so Docker could not start the container with a GPU.</source>
        <translation>NVIDIA Container Toolkit 无法加载主机的 NVIDIA 驱动库（{library}），因此 Docker 无法启动带 GPU 的容器。</translation>
    </message>
    <message>
        <source>The toolkit takes the driver from the host. Run &apos;nvidia-smi&apos; on the host: if it fails, install the NVIDIA driver there (https://www.nvidia.com/Download/index.aspx or your distribution&apos;s package) and restart. If it works, Docker runs where it cannot see the driver: Docker installed as a snap or Docker Desktop on Linux cannot use it (install Docker Engine from Docker&apos;s repository), and rootless Docker needs &apos;sudo nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place&apos;. Then &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos;, restart Docker, and check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;.</source>
        <translation>Toolkit 从主机获取驱动。请在主机上运行 &apos;nvidia-smi&apos;：如果失败，请在主机上安装 NVIDIA 驱动（https://www.nvidia.com/Download/index.aspx 或发行版的软件包）并重启。如果成功，说明 Docker 运行在看不到驱动的地方：以 snap 安装的 Docker 或 Linux 上的 Docker Desktop 无法使用它（请从 Docker 的软件源安装 Docker Engine），无 root 的 Docker 需要 &apos;sudo nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place&apos;。然后运行 &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos;，重启 Docker，并用 &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos; 检查。</translation>
    </message>
    <message>
        <source>The NVIDIA Container Toolkit could not mount the host&apos;s driver files into the container (nvidia-container-cli: mount error: {detail}).</source>
        <translation>NVIDIA Container Toolkit 无法将主机的驱动文件挂载到容器中（nvidia-container-cli: mount error: {detail}）。</translation>
    </message>
    <message>
        <source>&apos;file exists&apos; means the image already contains a driver file that the toolkit mounts from the host (the path in the message: libnvidia-ml.so.1, nvidia-smi, libcuda.so), for example because it was saved with &apos;docker commit&apos; from a running GPU container or NVIDIA driver packages were installed in it. Rebuild the image from its Dockerfile without driver packages (the toolkit brings the host&apos;s driver), or delete those files in the image. Other mount errors often follow a driver update: restart the host.</source>
        <translation>&apos;file exists&apos; 表示镜像中已经包含了 toolkit 要从主机挂载的驱动文件（即消息中的路径：libnvidia-ml.so.1、nvidia-smi、libcuda.so），例如该镜像是用 &apos;docker commit&apos; 从正在运行的 GPU 容器保存的，或者在镜像中安装了 NVIDIA 驱动软件包。请根据其 Dockerfile 重新构建镜像，且不要安装驱动软件包（toolkit 会带入主机的驱动），或者删除镜像中的这些文件。其他挂载错误通常出现在驱动更新之后：请重启主机。</translation>
    </message>
    <message>
        <source>The container image needs a driver that supports CUDA {cuda} or newer, and the host&apos;s NVIDIA driver is older (nvidia-container-cli: unsatisfied condition: cuda&gt;={cuda}).</source>
        <translation>容器镜像需要支持 CUDA {cuda} 或更新版本的驱动，而主机的 NVIDIA 驱动版本较旧（nvidia-container-cli: unsatisfied condition: cuda&gt;={cuda}）。</translation>
    </message>
    <message>
        <source>&apos;nvidia-smi&apos; on the host shows the newest CUDA its driver supports (&apos;CUDA Version&apos;). Either update the host&apos;s NVIDIA driver to one that supports CUDA {cuda} (on Windows with Docker Desktop, the Windows driver), or use a tag of the image built for the CUDA your driver supports. Setting NVIDIA_DISABLE_REQUIRES=true skips the check, but the program then fails when it needs the newer CUDA, unless the GPU supports CUDA forward compatibility (data-center GPUs).</source>
        <translation>主机上的 &apos;nvidia-smi&apos; 会显示其驱动支持的最新 CUDA 版本（&apos;CUDA Version&apos;）。请将主机的 NVIDIA 驱动更新到支持 CUDA {cuda} 的版本（在 Windows 上使用 Docker Desktop 时，更新 Windows 驱动），或者使用为你的驱动所支持的 CUDA 构建的镜像标签。设置 NVIDIA_DISABLE_REQUIRES=true 可以跳过此检查，但程序在需要更新的 CUDA 时会失败，除非该 GPU 支持 CUDA 前向兼容（数据中心 GPU）。</translation>
    </message>
    <message>
        <source>Docker does not know the &apos;nvidia&apos; runtime (&apos;unknown or invalid runtime name: nvidia&apos;): the NVIDIA Container Toolkit is missing or not registered with this Docker daemon.</source>
        <translation>Docker 不认识 &apos;nvidia&apos; 运行时（&apos;unknown or invalid runtime name: nvidia&apos;）：NVIDIA Container Toolkit 未安装，或未注册到此 Docker 守护进程。</translation>
    </message>
    <message>
        <source>Install the NVIDIA Container Toolkit on the host, register it and restart Docker: &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and &apos;sudo systemctl restart docker&apos;; &apos;docker info&apos; must then list nvidia under Runtimes. Rootless Docker reads its own ~/.config/docker/daemon.json: add &apos;--config=$HOME/.config/docker/daemon.json&apos; and restart it with &apos;systemctl --user restart docker&apos;. Docker Desktop (Windows) has no nvidia runtime: remove &apos;--runtime=nvidia&apos; or compose&apos;s &apos;runtime: nvidia&apos; and use &apos;--gpus all&apos; or a compose device reservation with &apos;capabilities: [gpu]&apos; instead.</source>
        <translation>请在主机上安装 NVIDIA Container Toolkit，注册它并重启 Docker：&apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; 和 &apos;sudo systemctl restart docker&apos;；之后 &apos;docker info&apos; 的 Runtimes 中必须列出 nvidia。Rootless Docker 读取的是它自己的 ~/.config/docker/daemon.json：请添加 &apos;--config=$HOME/.config/docker/daemon.json&apos;，并用 &apos;systemctl --user restart docker&apos; 重启它。Docker Desktop（Windows）没有 nvidia 运行时：请删除 &apos;--runtime=nvidia&apos; 或 compose 中的 &apos;runtime: nvidia&apos;，改用 &apos;--gpus all&apos; 或带 &apos;capabilities: [gpu]&apos; 的 compose 设备预留。</translation>
    </message>
    <message>
        <source>Kubernetes cannot schedule the pod: no node has a free nvidia.com/gpu (&apos;Insufficient nvidia.com/gpu&apos;).</source>
        <translation>Kubernetes 无法调度该 pod：没有任何节点有空闲的 nvidia.com/gpu（&apos;Insufficient nvidia.com/gpu&apos;）。</translation>
    </message>
    <message>
        <source>Run &apos;kubectl describe node NODE&apos; on the GPU node: if Allocatable shows no nvidia.com/gpu, the NVIDIA device plugin is not running or not working there; install it (or the NVIDIA GPU Operator) and check its pod&apos;s log with &apos;kubectl logs&apos;. If the node shows GPUs, other pods hold them all: wait, or lower the pod&apos;s nvidia.com/gpu limit. With MIG or time-slicing, request the resource name the node advertises (such as nvidia.com/mig-1g.10gb).</source>
        <translation>请对 GPU 节点运行 &apos;kubectl describe node NODE&apos;：如果 Allocatable 中没有 nvidia.com/gpu，说明 NVIDIA device plugin 没有在该节点上运行或工作不正常；请安装它（或 NVIDIA GPU Operator），并用 &apos;kubectl logs&apos; 查看其 pod 的日志。如果节点显示有 GPU，说明它们都已被其他 pod 占用：请等待，或降低该 pod 的 nvidia.com/gpu 限额。使用 MIG 或时间分片（time-slicing）时，请请求节点公布的资源名称（例如 nvidia.com/mig-1g.10gb）。</translation>
    </message>
    <message>
        <source>The NVIDIA device plugin found no usable GPU driver on its node, so the node advertises no nvidia.com/gpu and GPU pods stay Pending.</source>
        <translation>NVIDIA device plugin 在其节点上找不到可用的 GPU 驱动，因此该节点不公布任何 nvidia.com/gpu，GPU pod 一直处于 Pending 状态。</translation>
    </message>
    <message>
        <source>On the node, check that &apos;nvidia-smi&apos; works, then make the container runtime use the NVIDIA runtime: for containerd &apos;sudo nvidia-ctk runtime configure --runtime=containerd&apos; and &apos;sudo systemctl restart containerd&apos; (for CRI-O &apos;--runtime=crio&apos;), and either make nvidia the default runtime or deploy the plugin with a RuntimeClass &apos;nvidia&apos; (Helm: --set runtimeClassName=nvidia). Then restart the device plugin pod. The NVIDIA GPU Operator sets all of this up.</source>
        <translation>请在该节点上检查 &apos;nvidia-smi&apos; 是否正常工作，然后让容器运行时使用 NVIDIA 运行时：对于 containerd，运行 &apos;sudo nvidia-ctk runtime configure --runtime=containerd&apos; 和 &apos;sudo systemctl restart containerd&apos;（对于 CRI-O，使用 &apos;--runtime=crio&apos;），并将 nvidia 设为默认运行时，或者使用 RuntimeClass &apos;nvidia&apos; 部署该插件（Helm：--set runtimeClassName=nvidia）。然后重启 device plugin 的 pod。NVIDIA GPU Operator 会完成所有这些设置。</translation>
    </message>
    <message>
        <source>libcuda.so, the driver library that Windows provides to WSL 2, was not found: in WSL it lives in /usr/lib/wsl/lib.</source>
        <translation>找不到 libcuda.so，即 Windows 提供给 WSL 2 的驱动库：在 WSL 中它位于 /usr/lib/wsl/lib。</translation>
    </message>
    <message>
        <source>Put /usr/lib/wsl/lib on the loader path: &apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos; (add it to ~/.bashrc to keep it). WSL&apos;s loader cache knows only libcuda.so.1 there, so programs that load &apos;libcuda.so&apos; fail without it. If /usr/lib/wsl/lib holds no libcuda.so at all, update the NVIDIA driver on Windows and run &apos;wsl --shutdown&apos;. Do not install a Linux NVIDIA driver inside WSL: the Windows driver serves WSL 2.</source>
        <translation>请将 /usr/lib/wsl/lib 加入加载器路径：&apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos;（将其添加到 ~/.bashrc 以永久生效）。WSL 的加载器缓存在该目录中只知道 libcuda.so.1，因此没有这项设置时，加载 &apos;libcuda.so&apos; 的程序会失败。如果 /usr/lib/wsl/lib 中根本没有 libcuda.so，请更新 Windows 上的 NVIDIA 驱动并运行 &apos;wsl --shutdown&apos;。不要在 WSL 内安装 Linux NVIDIA 驱动：WSL 2 由 Windows 驱动提供支持。</translation>
    </message>
    <message>
        <source>ldconfig says /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link: a harmless note in WSL 2.</source>
        <translation>ldconfig 提示 /usr/lib/wsl/lib/libcuda.so.1 不是符号链接：这在 WSL 2 中是无害的提示。</translation>
    </message>
    <message>
        <source>The Windows NVIDIA driver gives WSL copies of libcuda.so instead of links, and ldconfig notes it on every package install. It does not stop the GPU from working and needs no fix. Only if a program then cannot find libcuda.so, add /usr/lib/wsl/lib to LD_LIBRARY_PATH.</source>
        <translation>Windows NVIDIA 驱动为 WSL 提供的是 libcuda.so 的副本而不是链接，ldconfig 在每次安装软件包时都会提示这一点。它不会影响 GPU 正常工作，也无需修复。只有当某个程序因此找不到 libcuda.so 时，才需要将 /usr/lib/wsl/lib 添加到 LD_LIBRARY_PATH。</translation>
    </message>
    <message>
        <source>Inside WSL 2, the NVIDIA tools could not reach the GPU (&apos;{evidence}&apos;): most often a Linux NVIDIA driver or nvidia-utils package installed inside WSL hides the Windows driver.</source>
        <translation>在 WSL 2 中，NVIDIA 工具无法访问 GPU（&apos;{evidence}&apos;）：最常见的原因是 WSL 内安装的 Linux NVIDIA 驱动或 nvidia-utils 软件包遮蔽了 Windows 驱动。</translation>
    </message>
    <message>
        <source>JAX could not load {library} (&apos;{evidence}&apos;), so its CUDA backend did not start and JAX runs on the CPU.</source>
        <translation>JAX 无法加载 {library}（&apos;{evidence}&apos;），因此其 CUDA 后端没有启动，JAX 在 CPU 上运行。</translation>
    </message>
    <message>
        <source>With &apos;jax[cuda12]&apos; CUDA&apos;s libraries come as nvidia-* wheels ({wheel}). Usually LD_LIBRARY_PATH or LD_PRELOAD points at another CUDA (a cluster&apos;s module, the NVIDIA HPC SDK, /usr/local/cuda), whose copy is found first or hides the wheel&apos;s: for this environment run &apos;unset LD_LIBRARY_PATH LD_PRELOAD&apos; (JAX&apos;s install guide, https://docs.jax.dev/en/latest/installation.html: with the pip CUDA wheels it must not point to other CUDA libraries), then &apos;pip install -U &quot;jax[cuda12]&quot;&apos; again. With a local CUDA (&apos;jax[cuda12_local]&apos;), install the toolkit&apos;s {library} and put its lib folder on LD_LIBRARY_PATH.</source>
        <translation>使用 &apos;jax[cuda12]&apos; 时，CUDA 的库以 nvidia-* wheel 的形式提供（{wheel}）。通常是 LD_LIBRARY_PATH 或 LD_PRELOAD 指向了另一个 CUDA（集群的模块、NVIDIA HPC SDK、/usr/local/cuda），其副本先被找到或遮住了 wheel 中的库：请在此环境中运行 &apos;unset LD_LIBRARY_PATH LD_PRELOAD&apos;（JAX 安装指南 https://docs.jax.dev/en/latest/installation.html：使用 pip 的 CUDA wheel 时，它不得指向其他 CUDA 库），然后再次运行 &apos;pip install -U &quot;jax[cuda12]&quot;&apos;。使用本地 CUDA（&apos;jax[cuda12_local]&apos;）时，请安装 CUDA 工具包的 {library}，并将其 lib 文件夹加入 LD_LIBRARY_PATH。</translation>
    </message>
    <message>
        <source>CuPy could not load NVRTC, CUDA&apos;s run-time compiler ({library}), which it needs to compile its kernels: the CUDA {cuda} it was built for is not installed where CuPy looks.</source>
        <translation>CuPy 无法加载 CUDA 的运行时编译器 NVRTC（{library}），而 CuPy 需要它来编译自己的内核：CuPy 构建时所针对的 CUDA {cuda} 没有安装在 CuPy 查找的位置。</translation>
    </message>
    <message>
        <source>Install CUDA Toolkit {cuda} (developer.nvidia.com/cuda-downloads; on Windows its installer sets CUDA_PATH, which CuPy reads) and open a new terminal; or install CuPy from conda-forge, which brings CUDA&apos;s libraries with it (&apos;conda install -c conda-forge cupy&apos;). The CuPy package must match the toolkit&apos;s major version (cupy-cuda12x for CUDA 12, cupy-cuda11x for CUDA 11).</source>
        <translation>请安装 CUDA 工具包 {cuda}（developer.nvidia.com/cuda-downloads；在 Windows 上，其安装程序会设置 CUDA_PATH，CuPy 会读取该变量），然后打开新的终端；或者从 conda-forge 安装 CuPy，它会一并带来 CUDA 的库（&apos;conda install -c conda-forge cupy&apos;）。CuPy 软件包必须与工具包的主版本相符（CUDA 12 对应 cupy-cuda12x，CUDA 11 对应 cupy-cuda11x）。</translation>
    </message>
    <message>
        <source>NVRTC, CUDA&apos;s run-time compiler, could not load its builtins library (NVRTC_ERROR_BUILTIN_OPERATION_FAILURE): CuPy&apos;s kernels cannot be compiled; the CUDA Toolkit CuPy uses is missing or incomplete.</source>
        <translation>CUDA 的运行时编译器 NVRTC 无法加载其内置函数库（NVRTC_ERROR_BUILTIN_OPERATION_FAILURE）：CuPy 的内核无法编译；CuPy 使用的 CUDA 工具包缺失或不完整。</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit of the version the CuPy package is built for (cupy-cuda12x: CUDA 12) from developer.nvidia.com/cuda-downloads, so that its nvrtc and nvrtc-builtins libraries are together (on Windows in its bin folder, found through CUDA_PATH), and open a new terminal; or install CuPy from conda-forge (&apos;conda install -c conda-forge cupy&apos;), which brings them.</source>
        <translation>请从 developer.nvidia.com/cuda-downloads 安装与 CuPy 软件包构建时所针对版本相同的 CUDA 工具包（cupy-cuda12x：CUDA 12），使其 nvrtc 和 nvrtc-builtins 库位于一起（在 Windows 上位于其 bin 文件夹中，通过 CUDA_PATH 找到），然后打开新的终端；或者从 conda-forge 安装 CuPy（&apos;conda install -c conda-forge cupy&apos;），它会带来这些库。</translation>
    </message>
    <message>
        <source>A framework&apos;s CUDA libraries must come from one installation. Usually a CUDA toolkit or cuDNN on LD_LIBRARY_PATH (PATH on Windows) is found before the nvidia-* wheels the framework installed: unset LD_LIBRARY_PATH, or remove those folders from it, for this environment. Keep PyTorch and TensorFlow (or JAX) in separate environments when they ask for different versions of the same nvidia-* wheels, and let pip install the versions the framework asks for (&apos;pip install --force-reinstall torch&apos; from the index it came from). Where the symbol is newer than the copy that was loaded (the symbol&apos;s version names that library, such as libcublas.so.12), that library&apos;s nvidia-* wheel is older than the rest: upgrade it to their CUDA release (&apos;pip install -U nvidia-cublas-cu12&apos;).</source>
        <translation>框架的 CUDA 库必须来自同一个安装。通常，LD_LIBRARY_PATH（Windows 上为 PATH）中的 CUDA 工具包或 cuDNN 会先于框架安装的 nvidia-* wheel 被找到：请在此环境中取消设置 LD_LIBRARY_PATH，或从中删除这些文件夹。当 PyTorch 与 TensorFlow（或 JAX）需要同一 nvidia-* wheel 的不同版本时，请将它们放在不同的环境中，并让 pip 安装框架所需的版本（从其来源索引执行 &apos;pip install --force-reinstall torch&apos;）。如果符号比已加载的副本更新（符号的版本会指明该库，例如 libcublas.so.12），则说明该库的 nvidia-* wheel 比其余的旧：请将其升级到与其余相同的 CUDA 版本（&apos;pip install -U nvidia-cublas-cu12&apos;）。</translation>
    </message>
    <message>
        <source>The driver&apos;s CUDA library ({library}) loaded, but it reports no NVIDIA GPU: the driver&apos;s kernel module is not working.</source>
        <translation>驱动程序的 CUDA 库（{library}）已加载，但它报告没有 NVIDIA GPU：驱动程序的内核模块没有正常工作。</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos;: if it fails, the kernel module did not load (&apos;lsmod | grep nvidia&apos; shows nothing). Restart if the driver was updated since the last start; on a Secure Boot machine, enroll the module&apos;s key or turn Secure Boot off; otherwise reinstall the driver from your distribution&apos;s packages or NVIDIA&apos;s repository so that the module is built for the running kernel. If &apos;nvidia-smi&apos; works, load the unified-memory module (&apos;sudo modprobe nvidia_uvm&apos;) and, in a container, start it with GPU access (&apos;--gpus all&apos;).</source>
        <translation>运行 &apos;nvidia-smi&apos;：如果失败，说明内核模块没有加载（&apos;lsmod | grep nvidia&apos; 没有任何输出）。如果驱动程序在上次启动后更新过，请重新启动；在启用了安全启动（Secure Boot）的计算机上，请注册该模块的密钥或关闭安全启动；否则，请从发行版的软件包或 NVIDIA 的软件源重新安装驱动程序，使模块针对正在运行的内核构建。如果 &apos;nvidia-smi&apos; 正常，请加载统一内存模块（&apos;sudo modprobe nvidia_uvm&apos;），在容器中请以 GPU 访问权限启动（&apos;--gpus all&apos;）。</translation>
    </message>
    <message>
        <source>Forward compatibility (the cuda-compat package, /usr/local/cuda/compat) works only on NVIDIA data-center GPUs, not on GeForce or most RTX cards; a container&apos;s start script turns it on when the host&apos;s driver is older than the image&apos;s CUDA. First compare the two: &apos;nvidia-smi&apos; shows the newest CUDA the driver supports; where that is older than the CUDA the image or the framework was built for, update the NVIDIA driver (the lasting fix) or use an image built for the driver&apos;s CUDA. Where the driver is new enough, keep the compat libraries out: remove the cuda-compat package from the host (&apos;sudo apt remove cuda-compat-*&apos;), take /usr/local/cuda/compat out of LD_LIBRARY_PATH, and in a container keep the image&apos;s compat folder out of the library path (for example LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu). Outside containers, the same error follows a driver update without a restart: restart the computer.</source>
        <translation>前向兼容（cuda-compat 软件包，/usr/local/cuda/compat）仅适用于 NVIDIA 数据中心 GPU，不适用于 GeForce 或大多数 RTX 显卡；当主机的驱动早于镜像的 CUDA 版本时，容器的启动脚本会启用它。请先比较两者：&apos;nvidia-smi&apos; 会显示驱动支持的最新 CUDA 版本；如果它早于镜像或框架所针对的 CUDA 版本，请更新 NVIDIA 驱动（长久的解决办法），或者使用为该驱动的 CUDA 版本构建的镜像。如果驱动足够新，请不要让兼容库生效：从主机上删除 cuda-compat 软件包（&apos;sudo apt remove cuda-compat-*&apos;），将 /usr/local/cuda/compat 从 LD_LIBRARY_PATH 中移除，并在容器中将镜像的 compat 文件夹排除在库路径之外（例如 LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu）。在容器之外，更新驱动后未重启也会导致同样的错误：请重启计算机。</translation>
    </message>
    <message>
        <source>TensorFlow could not start CUDA: cuInit returned {status}, so it uses no GPU and runs on the CPU.</source>
        <translation>TensorFlow 无法启动 CUDA:cuInit 返回 {status},因此它不使用 GPU,而是在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Check that &apos;nvidia-smi&apos; lists the GPU. At cuInit this error most often follows a driver update or a suspend: restart the computer, or reload the unified-memory module (&apos;sudo modprobe -r nvidia_uvm &amp;&amp; sudo modprobe nvidia_uvm&apos;). Without access to /dev/nvidia-uvm CUDA fails the same way: running a CUDA program once as root creates it, and the user must be allowed to open /dev/nvidia*. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;).</source>
        <translation>检查 &apos;nvidia-smi&apos; 是否列出该 GPU。在 cuInit 时出现此错误,最常见于驱动更新或睡眠之后:请重启计算机,或重新加载统一内存模块(&apos;sudo modprobe -r nvidia_uvm &amp;&amp; sudo modprobe nvidia_uvm&apos;)。无法访问 /dev/nvidia-uvm 时 CUDA 也会同样失败:以 root 身份运行一次 CUDA 程序即可创建它,且用户必须有权打开 /dev/nvidia*。在容器中,请以 GPU 访问权限启动它(&apos;docker run --gpus all ...&apos;)。</translation>
    </message>
    <message>
        <source>TensorFlow found no NVIDIA driver: the driver&apos;s library ({driver_library}) did not load, so it uses no GPU and runs on the CPU.</source>
        <translation>TensorFlow 未找到 NVIDIA 驱动:驱动的库({driver_library})未能加载,因此它不使用 GPU,而是在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver for the GPU from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;) and restart; &apos;nvidia-smi&apos; must then list the GPU. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;, which needs the NVIDIA Container Toolkit on the host); in WSL 2, install the driver on Windows, not inside WSL.</source>
        <translation>从 https://www.nvidia.com/Download/index.aspx 安装该 GPU 的 NVIDIA 驱动(Ubuntu 上:&apos;sudo ubuntu-drivers install&apos;)并重启;之后 &apos;nvidia-smi&apos; 应列出该 GPU。在容器中,请以 GPU 访问权限启动它(&apos;docker run --gpus all ...&apos;,主机上需要 NVIDIA Container Toolkit);在 WSL 2 中,请在 Windows 上安装驱动,而不是在 WSL 内。</translation>
    </message>
    <message>
        <source>TensorFlow found no running NVIDIA driver: cuInit returned {status}, and the driver&apos;s kernel module is not loaded (&apos;kernel driver does not appear to be running on this host&apos;), so it uses no GPU and runs on the CPU.</source>
        <translation>TensorFlow 未找到正在运行的 NVIDIA 驱动:cuInit 返回 {status},且驱动的内核模块未加载(&apos;kernel driver does not appear to be running on this host&apos;),因此它不使用 GPU,而是在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos;. After a driver or kernel update, restart the computer first; if the module still does not load, build it for the running kernel (install the kernel&apos;s headers, then &apos;sudo dkms autoinstall&apos;) or reinstall the driver, and with Secure Boot on, enrol the module&apos;s key (&apos;sudo dmesg | grep -i nvidia&apos; says why it was refused). In a container, the host&apos;s driver must work and the container must be started with GPU access (&apos;docker run --gpus all ...&apos;); in WSL 2 there is no Linux module: update the driver on Windows.</source>
        <translation>运行 &apos;nvidia-smi&apos;。驱动或内核更新后,请先重启计算机;如果模块仍未加载,请为当前内核构建它(安装内核头文件,然后运行 &apos;sudo dkms autoinstall&apos;)或重新安装驱动;若开启了安全启动,请登记该模块的密钥(&apos;sudo dmesg | grep -i nvidia&apos; 会说明它被拒绝的原因)。在容器中,主机的驱动必须正常工作,且容器必须以 GPU 访问权限启动(&apos;docker run --gpus all ...&apos;);WSL 2 中没有 Linux 模块:请在 Windows 上更新驱动。</translation>
    </message>
    <message>
        <source>The NVIDIA driver&apos;s library loaded, but cuInit returned {status}: it sees no GPU, so TensorFlow uses none and runs on the CPU.</source>
        <translation>NVIDIA 驱动的库已加载,但 cuInit 返回 {status}:它看不到任何 GPU,因此 TensorFlow 不使用 GPU,而是在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Check CUDA_VISIBLE_DEVICES first: an empty value or -1 hides every GPU (&apos;echo $CUDA_VISIBLE_DEVICES&apos;; unset it, or set it to a GPU from &apos;nvidia-smi -L&apos;). If &apos;nvidia-smi&apos; lists no GPU, the driver&apos;s kernel module is not working: restart, or reinstall the driver. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;); on a cluster, ask the job scheduler for a GPU (Slurm: --gpus=1).</source>
        <translation>请先检查 CUDA_VISIBLE_DEVICES:空值或 -1 会隐藏所有 GPU(&apos;echo $CUDA_VISIBLE_DEVICES&apos;;取消设置它,或将其设为 &apos;nvidia-smi -L&apos; 中的某个 GPU)。如果 &apos;nvidia-smi&apos; 未列出任何 GPU,说明驱动的内核模块未正常工作:请重启或重新安装驱动。在容器中,请以 GPU 访问权限启动它(&apos;docker run --gpus all ...&apos;);在集群上,请向作业调度器申请 GPU(Slurm:--gpus=1)。</translation>
    </message>
    <message>
        <source>TensorFlow did not find the CUDA libraries its GPU support needs (&apos;Could not find cuda drivers on your machine, GPU will not be used&apos;), so it runs on the CPU.</source>
        <translation>TensorFlow 未找到其 GPU 支持所需的 CUDA 库(&apos;Could not find cuda drivers on your machine, GPU will not be used&apos;),因此在 CPU 上运行。</translation>
    </message>
    <message>
        <source>On Linux, install TensorFlow with its CUDA libraries, &apos;pip install tensorflow[and-cuda]&apos; (TensorFlow 2.14 and newer), with an NVIDIA driver that &apos;nvidia-smi&apos; shows working, and keep LD_LIBRARY_PATH from pointing at another CUDA. On native Windows, TensorFlow 2.11 and newer have no GPU support: use WSL 2, or TensorFlow 2.10 with CUDA 11.2 and cuDNN 8.1.</source>
        <translation>在 Linux 上,请连同其 CUDA 库一起安装 TensorFlow:&apos;pip install tensorflow[and-cuda]&apos;(TensorFlow 2.14 及更新版本),并使用 &apos;nvidia-smi&apos; 显示工作正常的 NVIDIA 驱动,同时不要让 LD_LIBRARY_PATH 指向其他 CUDA。在原生 Windows 上,TensorFlow 2.11 及更新版本不支持 GPU:请使用 WSL 2,或使用 TensorFlow 2.10 搭配 CUDA 11.2 和 cuDNN 8.1。</translation>
    </message>
    <message>
        <source>A compiled module was built for NumPy 1.x and cannot run with the NumPy 2 installed here.</source>
        <translation>某个已编译模块是为 NumPy 1.x 构建的，无法与此处安装的 NumPy 2 一起运行。</translation>
    </message>
    <message>
        <source>Either install a NumPy 1 release in this environment (&apos;pip install &quot;numpy&lt;2&quot;&apos;), or upgrade the module that fails to a release built for NumPy 2 (the traceback names it, for example &apos;pip install -U onnxruntime-gpu&apos;). NumPy 2 changed its binary interface: modules compiled against NumPy 1.x must be rebuilt.</source>
        <translation>请在此环境中安装 NumPy 1 版本（&apos;pip install &quot;numpy&lt;2&quot;&apos;），或将出错的模块升级到为 NumPy 2 构建的版本（回溯信息中会给出模块名称，例如 &apos;pip install -U onnxruntime-gpu&apos;）。NumPy 2 更改了其二进制接口：针对 NumPy 1.x 编译的模块必须重新编译。</translation>
    </message>
    <message>
        <source>FlashAttention 2 runs only on GPUs from Ampere on (compute capability 8.0: RTX 30 series, A100 and newer); this GPU is older.</source>
        <translation>FlashAttention 2 仅支持 Ampere 及更新架构的 GPU（计算能力 8.0：RTX 30 系列、A100 及更新型号）；此 GPU 的架构较旧。</translation>
    </message>
    <message>
        <source>Do not use FlashAttention on this GPU: let the program use PyTorch&apos;s own attention instead (in Hugging Face Transformers, attn_implementation=&quot;sdpa&quot;; in other programs, turn off their flash-attention option or uninstall flash-attn: &apos;pip uninstall flash-attn&apos;). PyTorch&apos;s scaled_dot_product_attention picks the fastest kernel this GPU has.</source>
        <translation>请勿在此 GPU 上使用 FlashAttention：请让程序改用 PyTorch 自带的注意力实现（在 Hugging Face Transformers 中使用 attn_implementation=&quot;sdpa&quot;；在其他程序中，请关闭其 flash-attention 选项或卸载 flash-attn：&apos;pip uninstall flash-attn&apos;）。PyTorch 的 scaled_dot_product_attention 会自动选择此 GPU 上最快的内核。</translation>
    </message>
    <message>
        <source>The NVIDIA open kernel module (nvidia.ko of the &apos;-open&apos; flavour) refused the GPU: it supports only GPUs with a GSP (Turing, GTX 16xx and RTX 20xx, and newer), and this one is older (Maxwell, Pascal or Volta). No NVIDIA module runs, so nvidia-smi and CUDA find no GPU.</source>
        <translation>NVIDIA 开源内核模块（&apos;-open&apos; 版本的 nvidia.ko）拒绝了该 GPU：它仅支持带 GSP 的 GPU（Turing，即 GTX 16xx 和 RTX 20xx，及更新的架构），而这块 GPU 更旧（Maxwell、Pascal 或 Volta）。没有任何 NVIDIA 模块在运行，因此 nvidia-smi 和 CUDA 都找不到 GPU。</translation>
    </message>
    <message>
        <source>Install the proprietary (&apos;closed&apos;) kernel module of the same driver instead, from branch 580, the last that supports these GPUs (590 and newer do not). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (not nvidia-driver-580-open). Fedora with negativo17&apos;s packages: set &apos;kernel&apos; instead of &apos;kernel-open&apos; in /etc/nvidia/kernel.conf and run &apos;sudo akmods --rebuild&apos;. Arch: a proprietary 580xx legacy package instead of nvidia-open. NVIDIA&apos;s installer: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Restart and check with &apos;nvidia-smi&apos;; &apos;sudo dmesg | grep NVRM&apos; must no longer show the GSP message.</source>
        <translation>请改为安装同一驱动程序的专有（&apos;closed&apos;）内核模块，使用 580 分支——这是支持这些 GPU 的最后一个分支（590 及更新版本不再支持）。Ubuntu、Debian、Pop!_OS、Mint：&apos;sudo apt install nvidia-driver-580&apos;（而不是 nvidia-driver-580-open）。使用 negativo17 软件包的 Fedora：在 /etc/nvidia/kernel.conf 中将 &apos;kernel-open&apos; 改为 &apos;kernel&apos;，然后运行 &apos;sudo akmods --rebuild&apos;。Arch：用专有的 580xx 旧版（legacy）软件包代替 nvidia-open。NVIDIA 安装程序：&apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;。重启后用 &apos;nvidia-smi&apos; 检查；&apos;sudo dmesg | grep NVRM&apos; 应不再显示 GSP 相关消息。</translation>
    </message>
    <message>
        <source>The NVIDIA open kernel module (nvidia.ko of the &apos;-open&apos; flavour) refused the {gpu}: it supports only GPUs with a GSP (Turing and newer), and this one is older. No NVIDIA module runs, so nvidia-smi and CUDA find no GPU.</source>
        <translation>NVIDIA 开源内核模块（&apos;-open&apos; 版本的 nvidia.ko）拒绝了 {gpu}：它仅支持带 GSP 的 GPU（Turing 及更新的架构），而这块 GPU 更旧。没有任何 NVIDIA 模块在运行，因此 nvidia-smi 和 CUDA 都找不到 GPU。</translation>
    </message>
    <message>
        <source>Install the proprietary (&apos;closed&apos;) kernel module of the same driver instead, from branch 580, the last that supports GPUs before Turing (590 and newer do not). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (not nvidia-driver-580-open). Fedora with negativo17&apos;s packages: set &apos;kernel&apos; instead of &apos;kernel-open&apos; in /etc/nvidia/kernel.conf and run &apos;sudo akmods --rebuild&apos;. Arch: a proprietary 580xx legacy package instead of nvidia-open. NVIDIA&apos;s installer: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Restart and check with &apos;nvidia-smi&apos;.</source>
        <translation>请改为安装同一驱动程序的专有（&apos;closed&apos;）内核模块，使用 580 分支——这是支持 Turing 之前 GPU 的最后一个分支（590 及更新版本不再支持）。Ubuntu、Debian、Pop!_OS、Mint：&apos;sudo apt install nvidia-driver-580&apos;（而不是 nvidia-driver-580-open）。使用 negativo17 软件包的 Fedora：在 /etc/nvidia/kernel.conf 中将 &apos;kernel-open&apos; 改为 &apos;kernel&apos;，然后运行 &apos;sudo akmods --rebuild&apos;。Arch：用专有的 580xx 旧版（legacy）软件包代替 nvidia-open。NVIDIA 安装程序：&apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;。重启后用 &apos;nvidia-smi&apos; 检查。</translation>
    </message>
    <message>
        <source>The NVIDIA open kernel module (nvidia.ko of the &apos;-open&apos; flavour) refused the {gpu}, a {architecture} GPU: the open module supports only GPUs with a GSP (Turing and newer). No NVIDIA module runs, so nvidia-smi and CUDA find no GPU.</source>
        <translation>NVIDIA 开源内核模块（&apos;-open&apos; 版本的 nvidia.ko）拒绝了 {gpu}（{architecture} 架构 GPU）：开源模块仅支持带 GSP 的 GPU（Turing 及更新的架构）。没有任何 NVIDIA 模块在运行，因此 nvidia-smi 和 CUDA 都找不到 GPU。</translation>
    </message>
    <message>
        <source>Install the proprietary (&apos;closed&apos;) kernel module of the same driver instead, from branch 580, the last that supports {architecture} GPUs (590 and newer do not). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (not nvidia-driver-580-open). Fedora with negativo17&apos;s packages: set &apos;kernel&apos; instead of &apos;kernel-open&apos; in /etc/nvidia/kernel.conf and run &apos;sudo akmods --rebuild&apos;. Arch: a proprietary 580xx legacy package instead of nvidia-open. NVIDIA&apos;s installer: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Restart and check with &apos;nvidia-smi&apos;.</source>
        <translation>请改为安装同一驱动程序的专有（&apos;closed&apos;）内核模块，使用 580 分支——这是支持 {architecture} 架构 GPU 的最后一个分支（590 及更新版本不再支持）。Ubuntu、Debian、Pop!_OS、Mint：&apos;sudo apt install nvidia-driver-580&apos;（而不是 nvidia-driver-580-open）。使用 negativo17 软件包的 Fedora：在 /etc/nvidia/kernel.conf 中将 &apos;kernel-open&apos; 改为 &apos;kernel&apos;，然后运行 &apos;sudo akmods --rebuild&apos;。Arch：用专有的 580xx 旧版（legacy）软件包代替 nvidia-open。NVIDIA 安装程序：&apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;。重启后用 &apos;nvidia-smi&apos; 检查。</translation>
    </message>
    <message>
        <source>Inside WSL 2, CUDA found no GPU (&apos;{evidence}&apos;): the GPU comes from the Windows driver&apos;s libcuda in /usr/lib/wsl/lib, and most often another libcuda is loaded first (a Linux NVIDIA driver&apos;s, the CUDA toolkit&apos;s stubs, a conda environment&apos;s).</source>
        <translation>在 WSL 2 中，CUDA 找不到 GPU（&apos;{evidence}&apos;）：GPU 由 /usr/lib/wsl/lib 中 Windows 驱动程序的 libcuda 提供，而最常见的原因是先加载了另一个 libcuda（Linux 版 NVIDIA 驱动程序的、CUDA Toolkit 的 stub 库，或某个 conda 环境中的）。</translation>
    </message>
    <message>
        <source>See which libcuda the loader finds: &apos;ldconfig -p | grep libcuda&apos; and &apos;echo $LD_LIBRARY_PATH&apos;. Only /usr/lib/wsl/lib/libcuda.so.1 can reach the GPU. Put it first: &apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos; (in ~/.bashrc to keep it), and take any &apos;.../stubs&apos; folder out of LD_LIBRARY_PATH. Remove a Linux driver installed inside WSL (&apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos;, then &apos;sudo apt remove --purge&apos; those packages), run &apos;wsl --shutdown&apos; in Windows and open WSL again. &apos;/usr/lib/wsl/lib/nvidia-smi&apos; must list the GPU; if it does not, update the NVIDIA driver on Windows.</source>
        <translation>查看加载器找到的是哪个 libcuda：&apos;ldconfig -p | grep libcuda&apos; 和 &apos;echo $LD_LIBRARY_PATH&apos;。只有 /usr/lib/wsl/lib/libcuda.so.1 能访问 GPU。请把它放在最前面：&apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos;（写入 ~/.bashrc 以永久生效），并从 LD_LIBRARY_PATH 中移除所有 &apos;.../stubs&apos; 目录。卸载在 WSL 内安装的 Linux 驱动程序（&apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos;，然后对这些软件包执行 &apos;sudo apt remove --purge&apos;），在 Windows 中运行 &apos;wsl --shutdown&apos;，再重新打开 WSL。&apos;/usr/lib/wsl/lib/nvidia-smi&apos; 应能列出 GPU；如果没有，请更新 Windows 上的 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>WSL 2 gives Docker no GPU (&apos;WSL environment detected but no adapters were found&apos;): either this machine has no NVIDIA GPU, or the Windows NVIDIA driver does not expose it to WSL 2. Reinstalling the NVIDIA Container Toolkit does not help.</source>
        <translation>WSL 2 没有向 Docker 提供 GPU（&apos;WSL environment detected but no adapters were found&apos;）：要么这台机器没有 NVIDIA GPU，要么 Windows 上的 NVIDIA 驱动程序没有将其提供给 WSL 2。重新安装 NVIDIA Container Toolkit 无济于事。</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos; in Windows PowerShell. If it lists no NVIDIA GPU (only Intel or AMD graphics), GPU containers cannot run here: start the container without &apos;--gpus all&apos; (in compose, remove the &apos;deploy: resources: reservations: devices&apos; entry) and use the program&apos;s CPU mode, or use a machine with an NVIDIA GPU. If it lists one: install the current NVIDIA driver for Windows, run &apos;wsl --update&apos; and &apos;wsl --shutdown&apos;, use WSL 2 (not WSL 1; &apos;wsl -l -v&apos;) and, in Docker Desktop, the WSL 2 based engine; data-center GPUs in TCC mode are not available to WSL. Check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;.</source>
        <translation>在 Windows PowerShell 中运行 &apos;nvidia-smi&apos;。如果它没有列出任何 NVIDIA GPU（只有 Intel 或 AMD 显卡），则这里无法运行 GPU 容器：启动容器时去掉 &apos;--gpus all&apos;（在 compose 中删除 &apos;deploy: resources: reservations: devices&apos; 项），并使用程序的 CPU 模式，或者换用一台有 NVIDIA GPU 的机器。如果列出了 GPU：安装最新的 Windows 版 NVIDIA 驱动程序，运行 &apos;wsl --update&apos; 和 &apos;wsl --shutdown&apos;，使用 WSL 2（而非 WSL 1；&apos;wsl -l -v&apos;），并在 Docker Desktop 中使用基于 WSL 2 的引擎；处于 TCC 模式的数据中心 GPU 无法在 WSL 中使用。用 &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos; 检查。</translation>
    </message>
    <message>
        <source>Docker was asked for an NVIDIA GPU (&apos;{evidence}&apos;), but the log shows this machine has no NVIDIA GPU (other graphics only), so no container can get one. Installing the NVIDIA Container Toolkit does not help.</source>
        <translation>Docker 被要求使用 NVIDIA GPU（&apos;{evidence}&apos;），但日志显示这台机器没有 NVIDIA GPU（只有其他显卡），因此任何容器都无法获得 GPU。安装 NVIDIA Container Toolkit 无济于事。</translation>
    </message>
    <message>
        <source>Run the container without a GPU: drop &apos;--gpus all&apos; (in compose, remove the &apos;deploy: resources: reservations: devices&apos; entry) and use the program&apos;s CPU mode (often an option such as &apos;--device cpu&apos;); it is slower. For CUDA, use a machine with an NVIDIA GPU and its driver, with Docker Desktop&apos;s WSL 2 engine on Windows or the NVIDIA Container Toolkit on Linux.</source>
        <translation>不使用 GPU 运行容器：去掉 &apos;--gpus all&apos;（在 compose 中删除 &apos;deploy: resources: reservations: devices&apos; 项），并使用程序的 CPU 模式（通常是类似 &apos;--device cpu&apos; 的选项）；速度会慢一些。如需使用 CUDA，请使用装有 NVIDIA GPU 及其驱动程序的机器，在 Windows 上配合 Docker Desktop 的 WSL 2 引擎，在 Linux 上配合 NVIDIA Container Toolkit。</translation>
    </message>
    <message>
        <source>The package needs a CUDA driver, and the solver found none on this machine: the virtual package __cuda is missing (&apos;{evidence}&apos;).</source>
        <translation>该软件包需要 CUDA 驱动程序，但求解器在这台机器上没有找到：缺少虚拟包 __cuda（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>conda, mamba and pixi set __cuda from the NVIDIA driver (&apos;conda info&apos; or &apos;pixi info&apos; lists it under virtual packages). On a machine without an NVIDIA GPU or driver (a login node, CI, a Docker build) that installs for a GPU machine, tell the solver the CUDA version of the target driver: &apos;CONDA_OVERRIDE_CUDA=12.4 conda install ...&apos; (the same for mamba, micromamba and pixi; https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html). If this machine has an NVIDIA GPU, install or repair its driver until &apos;nvidia-smi&apos; works, then run the install again. To run without a GPU, install the CPU build instead.</source>
        <translation>conda、mamba 和 pixi 根据 NVIDIA 驱动程序设置 __cuda（&apos;conda info&apos; 或 &apos;pixi info&apos; 会在虚拟包（virtual packages）下列出它）。如果在没有 NVIDIA GPU 或驱动程序的机器上（登录节点、CI、Docker 构建）为 GPU 机器安装，请把目标机器驱动程序的 CUDA 版本告诉求解器：&apos;CONDA_OVERRIDE_CUDA=12.4 conda install ...&apos;（mamba、micromamba 和 pixi 同理；https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html）。如果这台机器有 NVIDIA GPU，请安装或修复其驱动程序，直到 &apos;nvidia-smi&apos; 能正常运行，然后重新安装。如果要在无 GPU 的情况下运行，请改为安装 CPU 版本。</translation>
    </message>
    <message>
        <source>The package needs a driver that supports CUDA {required} or newer; this machine&apos;s NVIDIA driver supports CUDA {found} (__cuda={found}).</source>
        <translation>该软件包需要支持 CUDA {required} 或更高版本的驱动程序；这台机器的 NVIDIA 驱动程序支持 CUDA {found}（__cuda={found}）。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to one that supports CUDA {required} (&apos;nvidia-smi&apos; shows the CUDA version the driver supports), or ask for a build made for CUDA {found} or older (for example &apos;cuda-version={found}&apos; with conda-forge). CONDA_OVERRIDE_CUDA={required} only makes the solver accept the package; its CUDA programs then fail on this driver. To install for another, newer machine, the override is right.</source>
        <translation>请将 NVIDIA 驱动程序更新到支持 CUDA {required} 的版本（&apos;nvidia-smi&apos; 会显示驱动程序支持的 CUDA 版本），或者改用针对 CUDA {found} 或更早版本构建的包（例如在 conda-forge 中指定 &apos;cuda-version={found}&apos;）。CONDA_OVERRIDE_CUDA={required} 只会让求解器接受该软件包，之后其 CUDA 程序在这个驱动程序上仍会失败。如果是为另一台更新的机器安装，使用该覆盖设置才是正确做法。</translation>
    </message>
    <message>
        <source>The package needs a newer CUDA driver than this machine&apos;s: its NVIDIA driver supports CUDA {found} (__cuda={found}) (&apos;{evidence}&apos;).</source>
        <translation>该软件包需要比这台机器上更新的 CUDA 驱动程序：本机的 NVIDIA 驱动程序支持 CUDA {found}（__cuda={found}）（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver (&apos;nvidia-smi&apos; shows the CUDA version it supports), or ask for a build made for CUDA {found} or older (for example &apos;cuda-version={found}&apos; with conda-forge). CONDA_OVERRIDE_CUDA only makes the solver accept the package; its CUDA programs then fail on this driver. To install for another, newer machine, the override is right (https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html).</source>
        <translation>请更新 NVIDIA 驱动程序（&apos;nvidia-smi&apos; 会显示它支持的 CUDA 版本），或者改用针对 CUDA {found} 或更早版本构建的包（例如在 conda-forge 中指定 &apos;cuda-version={found}&apos;）。CONDA_OVERRIDE_CUDA 只会让求解器接受该软件包，之后其 CUDA 程序在这个驱动程序上仍会失败。如果是为另一台更新的机器安装，使用该覆盖设置才是正确做法（https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html）。</translation>
    </message>
    <message>
        <source>A CUDA build was asked for on macOS, where there is no CUDA: the solver has no __cuda virtual package here (&apos;{evidence}&apos;).</source>
        <translation>在 macOS 上请求了 CUDA 版本，但 macOS 上没有 CUDA：这里的求解器没有 __cuda 虚拟包（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>Install the package without CUDA (its CPU build; PyTorch on Apple silicon uses the &apos;mps&apos; device instead). For CUDA, install on a Linux or Windows machine with an NVIDIA GPU; to only solve an environment for such a machine, set the target platform and CONDA_OVERRIDE_CUDA (for example &apos;CONDA_OVERRIDE_CUDA=12.4 conda create --platform linux-64 ...&apos;).</source>
        <translation>请安装不含 CUDA 的软件包（其 CPU 版本；Apple 芯片上的 PyTorch 改用 &apos;mps&apos; 设备）。如需 CUDA，请在配备 NVIDIA GPU 的 Linux 或 Windows 机器上安装；如果只是为这样的机器求解环境，请设置目标平台和 CONDA_OVERRIDE_CUDA（例如 &apos;CONDA_OVERRIDE_CUDA=12.4 conda create --platform linux-64 ...&apos;）。</translation>
    </message>
    <message>
        <source>The C++ runtime that was loaded ({library}) is older than the one {required_by} was built with: it lacks {needed}, which comes with GCC {gcc} or newer.</source>
        <translation>已加载的 C++ 运行时（{library}）比构建 {required_by} 时所用的版本旧：它缺少 {needed}，该符号随 GCC {gcc} 或更高版本提供。</translation>
    </message>
    <message>
        <source>In a conda environment, its own newer libstdc++ is usually there but not found first: &apos;conda install -c conda-forge libstdcxx-ng&apos; (keeps it current), then &apos;export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH&apos; before starting Python. Outside conda, upgrade the system&apos;s C++ runtime (&apos;sudo apt install --only-upgrade libstdc++6&apos;); where the distribution has none new enough, use a conda environment or a build made for this system. &apos;strings {library} | grep GLIBCXX_3.4.&apos; lists what the loaded one has.</source>
        <translation>在 conda 环境中，环境自带的较新 libstdc++ 通常已经存在，但没有被优先找到：请运行 &apos;conda install -c conda-forge libstdcxx-ng&apos;（使其保持最新），然后在启动 Python 之前运行 &apos;export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH&apos;。在 conda 之外，请升级系统的 C++ 运行时（&apos;sudo apt install --only-upgrade libstdc++6&apos;）；如果发行版没有足够新的版本，请使用 conda 环境或为本系统构建的版本。&apos;strings {library} | grep GLIBCXX_3.4.&apos; 会列出已加载的运行时所包含的版本。</translation>
    </message>
    <message>
        <source>The system&apos;s C library (glibc) is older than the package needs (&apos;{evidence}&apos;).</source>
        <translation>系统的 C 库（glibc）版本低于该软件包的要求（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>&apos;ldd --version&apos; shows the system&apos;s glibc. It cannot be upgraded by pip or conda: use an older release of the package built for this glibc, build it from source, run it in a container with a newer distribution, or upgrade the operating system.</source>
        <translation>&apos;ldd --version&apos; 会显示系统的 glibc 版本。pip 和 conda 都无法升级它：请使用针对此 glibc 构建的较旧版本的软件包、从源码构建、在使用较新发行版的容器中运行，或者升级操作系统。</translation>
    </message>
    <message>
        <source>The package needs glibc {required} or newer, and this system has glibc {found} (conda&apos;s virtual package __glibc).</source>
        <translation>该软件包需要 glibc {required} 或更高版本，而此系统的 glibc 为 {found}（conda 的虚拟包 __glibc）。</translation>
    </message>
    <message>
        <source>conda and pixi cannot install a newer glibc: it is the operating system&apos;s C library (&apos;ldd --version&apos;). Pin an older release of the package built for glibc {found}, run the environment in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system. CONDA_OVERRIDE_GLIBC only makes the solver accept the package; it then fails to load.</source>
        <translation>conda 和 pixi 无法安装更新的 glibc：它是操作系统的 C 库（&apos;ldd --version&apos;）。请锁定针对 glibc {found} 构建的较旧版本的软件包，在使用较新发行版的容器中运行该环境（例如 &apos;docker run -it ubuntu:24.04&apos;），或者升级操作系统。CONDA_OVERRIDE_GLIBC 只会让求解器接受该软件包，之后它会加载失败。</translation>
    </message>
    <message>
        <source>The package needs glibc {required} or newer, which this system does not have (conda&apos;s virtual package __glibc).</source>
        <translation>该软件包需要 glibc {required} 或更高版本，而此系统不满足该要求（conda 的虚拟包 __glibc）。</translation>
    </message>
    <message>
        <source>&apos;ldd --version&apos; shows the system&apos;s glibc; conda and pixi cannot install a newer one. Pin an older release of the package built for this glibc, run the environment in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system.</source>
        <translation>&apos;ldd --version&apos; 会显示系统的 glibc 版本；conda 和 pixi 无法安装更新的 glibc。请锁定针对此 glibc 构建的较旧版本的软件包，在使用较新发行版的容器中运行该环境（例如 &apos;docker run -it ubuntu:24.04&apos;），或者升级操作系统。</translation>
    </message>
    <message>
        <source>pip found no installable wheel because this system&apos;s glibc ({found}) is older than the wheels need: their manylinux tag asks for glibc {required} or newer, so pip skips them (&apos;{evidence}&apos;).</source>
        <translation>pip 找不到可安装的 wheel，因为此系统的 glibc（{found}）低于这些 wheel 的要求：它们的 manylinux 标签要求 glibc {required} 或更高版本，因此 pip 跳过了它们（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>pip cannot upgrade glibc, the operating system&apos;s C library (&apos;ldd --version&apos;). Install an older release of the package that still has manylinux2014 (glibc 2.17) wheels (&apos;pip index versions PACKAGE&apos; lists the releases; the wheel names on pypi.org show their tags), build it from source, run in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system (CentOS 7 and RHEL 7 have glibc 2.17, RHEL 8 2.28).</source>
        <translation>pip 无法升级 glibc，它是操作系统的 C 库（&apos;ldd --version&apos;）。请安装仍提供 manylinux2014（glibc 2.17）wheel 的较旧版本软件包（&apos;pip index versions PACKAGE&apos; 会列出各个版本；pypi.org 上的 wheel 文件名显示了其标签），或从源码构建，或在使用较新发行版的容器中运行（例如 &apos;docker run -it ubuntu:24.04&apos;），或者升级操作系统（CentOS 7 和 RHEL 7 的 glibc 为 2.17，RHEL 8 为 2.28）。</translation>
    </message>
    <message>
        <source>pip found no installable wheel: the system&apos;s glibc is older than the wheels&apos; manylinux tag needs (&apos;{evidence}&apos;).</source>
        <translation>pip 找不到可安装的 wheel：系统的 glibc 低于这些 wheel 的 manylinux 标签的要求（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>pip cannot upgrade glibc (&apos;ldd --version&apos; shows it). Install an older release of the package with manylinux2014 wheels, build it from source, run in a container with a newer distribution, or upgrade the operating system.</source>
        <translation>pip 无法升级 glibc（&apos;ldd --version&apos; 可查看其版本）。请安装提供 manylinux2014 wheel 的较旧版本软件包、从源码构建、在使用较新发行版的容器中运行，或者升级操作系统。</translation>
    </message>
    <message>
        <source>{by} needs glibc {required} or newer, and this system has glibc {found} (&apos;{evidence}&apos;).</source>
        <translation>{by} 需要 glibc {required} 或更高版本，而本系统的 glibc 为 {found}（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>The loader refuses a library built for a newer glibc, the operating system&apos;s C library (&apos;ldd --version&apos;), which pip and conda cannot upgrade. Install a release of the package built for glibc {found} (an older one, or one with manylinux2014 wheels), build it from source, run it in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system.</source>
        <translation>动态加载器拒绝加载为更新的 glibc 构建的库；glibc 是操作系统的 C 库（&apos;ldd --version&apos;），pip 和 conda 都无法升级它。请安装为 glibc {found} 构建的软件包版本（较旧的版本，或提供 manylinux2014 wheel 的版本），从源代码构建，在使用较新发行版的容器中运行（例如 &apos;docker run -it ubuntu:24.04&apos;），或升级操作系统。</translation>
    </message>
    <message>
        <source>{by} needs glibc {required} or newer, which this system does not have (&apos;{evidence}&apos;).</source>
        <translation>{by} 需要 glibc {required} 或更高版本，而本系统没有（&apos;{evidence}&apos;）。</translation>
    </message>
    <message>
        <source>&apos;ldd --version&apos; shows the system&apos;s glibc, the operating system&apos;s C library, which pip and conda cannot upgrade. Install a release of the package built for the system&apos;s glibc (an older one, or one with manylinux2014 wheels), build it from source, run it in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system.</source>
        <translation>&apos;ldd --version&apos; 会显示系统的 glibc，即操作系统的 C 库，pip 和 conda 都无法升级它。请安装为系统 glibc 构建的软件包版本（较旧的版本，或提供 manylinux2014 wheel 的版本），从源代码构建，在使用较新发行版的容器中运行（例如 &apos;docker run -it ubuntu:24.04&apos;），或升级操作系统。</translation>
    </message>
    <message>
        <source>A CUDA package ({packages}) was asked for on macOS, where NVIDIA&apos;s CUDA does not exist: no such wheel is made for Macs, so the installer found none.</source>
        <translation>在 macOS 上请求了 CUDA 软件包（{packages}），但 macOS 上不存在 NVIDIA 的 CUDA：没有为 Mac 构建的此类 wheel，因此安装程序找不到。</translation>
    </message>
    <message>
        <source>Install without the CUDA parts: drop the &apos;+cuXXX&apos; suffix and the nvidia-*-cu* packages from the requirements (for PyTorch, &apos;pip install torch torchvision&apos; installs the Mac build, which uses the &apos;mps&apos; device on Apple silicon). A project that needs CUDA must run on a Linux or Windows machine with an NVIDIA GPU (or a cloud one).</source>
        <translation>安装时去掉 CUDA 相关部分：从依赖列表中删除 &apos;+cuXXX&apos; 后缀和 nvidia-*-cu* 软件包（对于 PyTorch，&apos;pip install torch torchvision&apos; 会安装 Mac 版本，在 Apple 芯片上使用 &apos;mps&apos; 设备）。需要 CUDA 的项目必须在配备 NVIDIA GPU 的 Linux 或 Windows 机器（或云端机器）上运行。</translation>
    </message>
    <message>
        <source>nvcc refused the host C++ compiler: this CUDA release does not support the installed compiler version.</source>
        <translation>nvcc 拒绝了主机 C++ 编译器：此 CUDA 版本不支持已安装的编译器版本。</translation>
    </message>
    <message>
        <source>Build with a host compiler version this CUDA release supports (its release notes list them), or install a newer CUDA Toolkit that supports the installed compiler. The nvcc flag &apos;-allow-unsupported-compiler&apos; only skips the check; the build may still fail.</source>
        <translation>请使用此 CUDA 版本支持的主机编译器版本进行构建（其发行说明中列出了支持的版本），或者安装支持已安装编译器的更新版 CUDA Toolkit。nvcc 参数 &apos;-allow-unsupported-compiler&apos; 只是跳过检查，构建仍可能失败。</translation>
    </message>
    <message>
        <source>nvcc refused the host compiler: this CUDA release supports gcc up to version {limit}, and a newer gcc is the one in use.</source>
        <translation>nvcc 拒绝了主机编译器：此 CUDA 版本最高支持 gcc {limit}，而当前使用的 gcc 版本更新。</translation>
    </message>
    <message>
        <source>Build with gcc {limit} or older: on Debian or Ubuntu &apos;sudo apt install gcc-{limit} g++-{limit}&apos;, then &apos;export CC=gcc-{limit} CXX=g++-{limit} NVCC_CCBIN=g++-{limit}&apos; and run the build again (CMake projects: -DCMAKE_CUDA_HOST_COMPILER=g++-{limit}). Or install a newer CUDA Toolkit whose nvcc supports your gcc (its release notes list the host compilers). The nvcc flag &apos;-allow-unsupported-compiler&apos; only skips the check; the build may still fail.</source>
        <translation>请使用 gcc {limit} 或更早版本构建：在 Debian 或 Ubuntu 上执行 &apos;sudo apt install gcc-{limit} g++-{limit}&apos;，然后执行 &apos;export CC=gcc-{limit} CXX=g++-{limit} NVCC_CCBIN=g++-{limit}&apos; 并重新构建（CMake 项目：-DCMAKE_CUDA_HOST_COMPILER=g++-{limit}）。或者安装更新版的 CUDA Toolkit，其 nvcc 支持您的 gcc（其发行说明中列出了支持的主机编译器）。nvcc 参数 &apos;-allow-unsupported-compiler&apos; 只是跳过检查，构建仍可能失败。</translation>
    </message>
    <message>
        <source>nvcc refused the host compiler: CUDA {cuda} supports gcc up to version {limit}, and a newer gcc is the one in use.</source>
        <translation>nvcc 拒绝了主机编译器：CUDA {cuda} 最高支持 gcc {limit}，而当前使用的 gcc 版本更新。</translation>
    </message>
    <message>
        <source>nvcc failed inside the C++ standard library headers of GCC {gcc} (&apos;{header}&apos;): this GCC is newer than the installed CUDA release supports, and nvcc&apos;s front end cannot read its headers.</source>
        <translation>nvcc 在 GCC {gcc} 的 C++ 标准库头文件（&apos;{header}&apos;）中失败：此 GCC 比已安装的 CUDA 版本所支持的更新，nvcc 的前端无法读取其头文件。</translation>
    </message>
    <message>
        <source>Build with an older GCC that this CUDA release supports (its installation guide lists them), such as GCC {older}: on Debian or Ubuntu &apos;sudo apt install gcc-{older} g++-{older}&apos;, then &apos;export CC=gcc-{older} CXX=g++-{older} NVCC_CCBIN=g++-{older}&apos; and build again (CMake projects: -DCMAKE_CUDA_HOST_COMPILER=g++-{older}; conda: &apos;conda install -c conda-forge gxx={older}&apos;). Or install a newer CUDA Toolkit whose nvcc supports GCC {gcc}.</source>
        <translation>请使用此 CUDA 版本支持的较旧 GCC 进行构建（其安装指南列出了支持的版本），例如 GCC {older}：在 Debian 或 Ubuntu 上执行 &apos;sudo apt install gcc-{older} g++-{older}&apos;，然后执行 &apos;export CC=gcc-{older} CXX=g++-{older} NVCC_CCBIN=g++-{older}&apos; 并重新构建（CMake 项目：-DCMAKE_CUDA_HOST_COMPILER=g++-{older}；conda：&apos;conda install -c conda-forge gxx={older}&apos;）。或者安装更新的 CUDA 工具包，其 nvcc 支持 GCC {gcc}。</translation>
    </message>
    <message>
        <source>nvcc refused the Visual Studio compiler (cl.exe): this CUDA release supports Visual Studio {supported} only.</source>
        <translation>nvcc 拒绝了 Visual Studio 编译器（cl.exe）：此 CUDA 版本仅支持 Visual Studio {supported}。</translation>
    </message>
    <message>
        <source>Build with a Visual Studio this CUDA release supports (Visual Studio {supported}): install its Build Tools (Visual Studio 2022: https://aka.ms/vs/17/release/vs_BuildTools.exe, with &apos;Desktop development with C++&apos;) and run the build from its &apos;x64 Native Tools Command Prompt&apos;. Or install a newer CUDA Toolkit (https://developer.nvidia.com/cuda-downloads) that supports your Visual Studio, of the same major version as torch&apos;s CUDA. The nvcc flag &apos;-allow-unsupported-compiler&apos; only skips the check.</source>
        <translation>请使用此 CUDA 版本支持的 Visual Studio（Visual Studio {supported}）进行构建：安装其 Build Tools（Visual Studio 2022：https://aka.ms/vs/17/release/vs_BuildTools.exe，勾选 &apos;Desktop development with C++&apos;），并在其 &apos;x64 Native Tools Command Prompt&apos; 中运行构建。或者安装支持您的 Visual Studio 的更新版 CUDA Toolkit（https://developer.nvidia.com/cuda-downloads），其主版本需与 torch 的 CUDA 主版本相同。nvcc 参数 &apos;-allow-unsupported-compiler&apos; 只是跳过检查。</translation>
    </message>
    <message>
        <source>nvcc refused the Visual Studio compiler (cl.exe): CUDA {cuda} supports Visual Studio {supported} only.</source>
        <translation>nvcc 拒绝了 Visual Studio 编译器（cl.exe）：CUDA {cuda} 仅支持 Visual Studio {supported}。</translation>
    </message>
    <message>
        <source>A CUDA extension was being built, but no CUDA Toolkit was found: CUDA_HOME is not set and nvcc, the CUDA compiler, is not where the build looked. PyTorch&apos;s wheels bring the CUDA runtime, not the compiler.</source>
        <translation>正在构建 CUDA 扩展，但找不到 CUDA Toolkit：未设置 CUDA_HOME，且 CUDA 编译器 nvcc 不在构建过程查找的位置。PyTorch 的 wheel 只附带 CUDA 运行时，不含编译器。</translation>
    </message>
    <message>
        <source>CMake found no CUDA compiler: nvcc is not installed, or not where CMake looks (PATH, the CUDACXX variable, CMAKE_CUDA_COMPILER).</source>
        <translation>CMake 未找到 CUDA 编译器：nvcc 未安装，或不在 CMake 查找的位置（PATH、CUDACXX 变量、CMAKE_CUDA_COMPILER）。</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit with its nvcc (Linux: NVIDIA&apos;s cuda-toolkit package from developer.nvidia.com/cuda-downloads, or &apos;sudo apt install nvidia-cuda-toolkit&apos; on Debian and Ubuntu; conda: &apos;conda install -c nvidia cuda-nvcc&apos;; Windows: NVIDIA&apos;s installer, with its Visual Studio integration). Then put it on PATH (&apos;export PATH=/usr/local/cuda/bin:$PATH&apos;) or name it to CMake (&apos;cmake -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc ..&apos;), and delete the build folder&apos;s CMakeCache.txt before configuring again: &apos;nvcc --version&apos; must answer first.</source>
        <translation>请安装带有 nvcc 的 CUDA 工具包（Linux：从 developer.nvidia.com/cuda-downloads 获取 NVIDIA 的 cuda-toolkit 软件包，或在 Debian 和 Ubuntu 上运行 &apos;sudo apt install nvidia-cuda-toolkit&apos;；conda：&apos;conda install -c nvidia cuda-nvcc&apos;；Windows：NVIDIA 的安装程序，并安装其 Visual Studio 集成）。然后将其加入 PATH（&apos;export PATH=/usr/local/cuda/bin:$PATH&apos;）或告诉 CMake 它的位置（&apos;cmake -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc ..&apos;），并在重新配置之前删除构建文件夹中的 CMakeCache.txt：&apos;nvcc --version&apos; 必须先能正常响应。</translation>
    </message>
    <message>
        <source>A CUDA extension was being built, but no CUDA Toolkit was found: CUDA_HOME is not set and nvcc, the CUDA compiler, is not where the build looked. This torch is built for CUDA {cuda}; its wheels bring the CUDA runtime, not the compiler.</source>
        <translation>正在构建 CUDA 扩展，但找不到 CUDA Toolkit：未设置 CUDA_HOME，且 CUDA 编译器 nvcc 不在构建过程查找的位置。此 torch 是针对 CUDA {cuda} 构建的；它的 wheel 只附带 CUDA 运行时，不含编译器。</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit of the same major version as torch&apos;s CUDA (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; shows it) from https://developer.nvidia.com/cuda-toolkit-archive; its installer sets CUDA_PATH, which the build reads. Open a new terminal and run the build again. Many packages also publish prebuilt Windows wheels, which need no compiler.</source>
        <translation>请从 https://developer.nvidia.com/cuda-toolkit-archive 安装与 torch 的 CUDA 主版本相同的 CUDA Toolkit（&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; 可查看该版本）；其安装程序会设置 CUDA_PATH，构建时会读取该变量。请打开新的终端并重新构建。许多软件包也发布了预编译的 Windows wheel，无需编译器。</translation>
    </message>
    <message>
        <source>Install CUDA Toolkit {cuda} from https://developer.nvidia.com/cuda-toolkit-archive; its installer sets CUDA_PATH, which the build reads. Open a new terminal and run the build again (or set it by hand: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{cuda}). Many packages also publish prebuilt Windows wheels, which need no compiler.</source>
        <translation>请从 https://developer.nvidia.com/cuda-toolkit-archive 安装 CUDA Toolkit {cuda}；其安装程序会设置 CUDA_PATH，构建时会读取该变量。请打开新的终端并重新构建（或手动设置：set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{cuda}）。许多软件包也发布了预编译的 Windows wheel，无需编译器。</translation>
    </message>
    <message>
        <source>The CUDA Toolkit the build found (CUDA {detected}) is of another major version than the CUDA this torch was built with ({torch_cuda}), so torch refuses to compile the extension.</source>
        <translation>构建过程找到的 CUDA Toolkit（CUDA {detected}）与构建此 torch 所用的 CUDA（{torch_cuda}）主版本不同，因此 torch 拒绝编译该扩展。</translation>
    </message>
    <message>
        <source>Make them match: install CUDA Toolkit {torch_cuda} and point the build at it (&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;; Windows: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}), or install a torch built for CUDA {detected}.</source>
        <translation>请使两者一致：安装 CUDA Toolkit {torch_cuda} 并让构建使用它（&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;；Windows：set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}），或者安装针对 CUDA {detected} 构建的 torch。</translation>
    </message>
    <message>
        <source>Make them match: install CUDA Toolkit {torch_cuda} and point the build at it (&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;; Windows: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}), or install a torch built for CUDA {detected}: &apos;pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;.</source>
        <translation>请使两者一致：安装 CUDA Toolkit {torch_cuda} 并让构建使用它（&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;；Windows：set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}），或者安装针对 CUDA {detected} 构建的 torch：&apos;pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;。</translation>
    </message>
    <message>
        <source>ptxas, the CUDA assembler, does not know this GPU&apos;s architecture ({sm}, compute capability {capability}): it comes from a CUDA release older than the GPU.</source>
        <translation>CUDA 汇编器 ptxas 不认识此 GPU 的架构（{sm}，计算能力 {capability}）：它来自比该 GPU 更早的 CUDA 版本。</translation>
    </message>
    <message>
        <source>Build with a newer CUDA Toolkit whose ptxas knows {sm}, or leave the architecture out of the build.</source>
        <translation>请使用其 ptxas 支持 {sm} 的更新版 CUDA Toolkit 进行构建，或在构建中去掉该架构。</translation>
    </message>
    <message>
        <source>The ptxas that Triton uses does not know this GPU&apos;s architecture ({sm}, compute capability {capability}): it comes from a CUDA release older than the GPU.</source>
        <translation>Triton 使用的 ptxas 不认识此 GPU 的架构（{sm}，计算能力 {capability}）：它来自比该 GPU 更早的 CUDA 版本。</translation>
    </message>
    <message>
        <source>Point Triton at the ptxas of the newest CUDA Toolkit installed: &apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos; (Windows: set TRITON_PTXAS_PATH to the toolkit&apos;s bin\ptxas.exe), or upgrade torch and Triton to their newest release for this GPU (pytorch.org/get-started/locally).</source>
        <translation>让 Triton 使用已安装的最新 CUDA Toolkit 中的 ptxas：&apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos;（Windows：将 TRITON_PTXAS_PATH 设置为该 Toolkit 的 bin\ptxas.exe），或者将 torch 和 Triton 升级到支持此 GPU 的最新版本（pytorch.org/get-started/locally）。</translation>
    </message>
    <message>
        <source>CUDA {first_cuda} is the first release whose ptxas knows {sm}. Upgrade torch (it brings the matching Triton) to a build for CUDA {first_cuda} or newer: &apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;. Or point Triton at the ptxas of an installed CUDA Toolkit {first_cuda} or newer: &apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos;.</source>
        <translation>从 CUDA {first_cuda} 起，ptxas 才支持 {sm}。请将 torch（会一并带来匹配的 Triton）升级到针对 CUDA {first_cuda} 或更高版本的构建：&apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;。或者让 Triton 使用已安装的 CUDA Toolkit {first_cuda} 或更高版本中的 ptxas：&apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos;。</translation>
    </message>
    <message>
        <source>Build with the newest CUDA Toolkit (point CUDA_HOME and PATH at it), or leave {sm} out of the architectures built (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES).</source>
        <translation>请使用最新的 CUDA Toolkit 构建（将 CUDA_HOME 和 PATH 指向它），或将 {sm} 从要构建的架构中去掉（TORCH_CUDA_ARCH_LIST、CMAKE_CUDA_ARCHITECTURES）。</translation>
    </message>
    <message>
        <source>CUDA {first_cuda} is the first release whose ptxas knows {sm}: install CUDA Toolkit {first_cuda} or newer and build with it (&apos;export CUDA_HOME=/usr/local/cuda-{first_cuda}&apos; and its bin folder first on PATH), or leave {sm} out of the architectures built (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES).</source>
        <translation>从 CUDA {first_cuda} 起，ptxas 才支持 {sm}：请安装 CUDA Toolkit {first_cuda} 或更高版本并用它构建（&apos;export CUDA_HOME=/usr/local/cuda-{first_cuda}&apos;，并将其 bin 目录放在 PATH 最前面），或将 {sm} 从要构建的架构中去掉（TORCH_CUDA_ARCH_LIST、CMAKE_CUDA_ARCHITECTURES）。</translation>
    </message>
    <message>
        <source>The Triton installed does not support this GPU&apos;s compute capability: it is older than the GPU.</source>
        <translation>已安装的 Triton 不支持此 GPU 的计算能力：它的版本早于该 GPU。</translation>
    </message>
    <message>
        <source>Upgrade torch and Triton together to their newest release (Triton 3.3, which came with torch 2.7, is the first to support Blackwell GPUs such as the RTX 50 series): &apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu128&apos;. On Windows, install the triton-windows release made for that torch.</source>
        <translation>请将 torch 和 Triton 一起升级到最新版本（Triton 3.3 随 torch 2.7 一同发布，是首个支持 RTX 50 系列等 Blackwell GPU 的版本）：&apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu128&apos;。在 Windows 上，请安装为该 torch 版本制作的 triton-windows 版本。</translation>
    </message>
    <message>
        <source>The linker could not find the NVIDIA driver&apos;s libcuda (&apos;{flag}&apos;): Triton (torch.compile, vLLM) links a small launcher against it at run time.</source>
        <translation>链接器找不到 NVIDIA 驱动程序的 libcuda（&apos;{flag}&apos;）：Triton（torch.compile、vLLM）会在运行时将一个小型启动器与其链接。</translation>
    </message>
    <message>
        <source>Find the driver&apos;s library: &apos;ldconfig -p | grep libcuda&apos; (or &apos;find / -name &quot;libcuda.so*&quot; 2&gt;/dev/null&apos;), and tell Triton its folder: &apos;export TRITON_LIBCUDA_PATH=&lt;that folder&gt;&apos; (or add the folder to LIBRARY_PATH). Where only libcuda.so.1 is there, link it: &apos;sudo ln -s libcuda.so.1 &lt;that folder&gt;/libcuda.so&apos;. In WSL 2 the folder is /usr/lib/wsl/lib; on Kubernetes GPU nodes (GKE) /usr/local/nvidia/lib64. A CUDA Toolkit&apos;s lib64/stubs holds a libcuda.so to link with, but the driver&apos;s own is the one that runs.</source>
        <translation>查找驱动程序的库：&apos;ldconfig -p | grep libcuda&apos;（或 &apos;find / -name &quot;libcuda.so*&quot; 2&gt;/dev/null&apos;），并告知 Triton 其所在文件夹：&apos;export TRITON_LIBCUDA_PATH=&lt;that folder&gt;&apos;（或将该文件夹加入 LIBRARY_PATH）。如果那里只有 libcuda.so.1，请为其创建链接：&apos;sudo ln -s libcuda.so.1 &lt;that folder&gt;/libcuda.so&apos;。在 WSL 2 中，该文件夹为 /usr/lib/wsl/lib；在 Kubernetes GPU 节点（GKE）上为 /usr/local/nvidia/lib64。CUDA 工具包的 lib64/stubs 中有一个可供链接的 libcuda.so，但实际运行的是驱动程序自己的 libcuda。</translation>
    </message>
    <message>
        <source>The linker could not find the NVIDIA driver&apos;s libcuda (&apos;{flag}&apos;): Triton (torch.compile, vLLM) links a small launcher against it at run time, and in WSL 2 it is in /usr/lib/wsl/lib.</source>
        <translation>链接器找不到 NVIDIA 驱动程序的 libcuda（&apos;{flag}&apos;）：Triton（torch.compile、vLLM）会在运行时将一个小型启动器与其链接，而在 WSL 2 中它位于 /usr/lib/wsl/lib。</translation>
    </message>
    <message>
        <source>Tell Triton where WSL 2 keeps the driver&apos;s libraries: &apos;export TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib&apos; (or &apos;export LIBRARY_PATH=/usr/lib/wsl/lib:$LIBRARY_PATH&apos;), and run again; &apos;ldconfig -p | grep libcuda&apos; should list that folder (if not, &apos;sudo ldconfig&apos;). Do not install a Linux NVIDIA driver inside WSL 2: Windows&apos; driver provides libcuda.</source>
        <translation>请告知 Triton WSL 2 存放驱动程序库的位置：&apos;export TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib&apos;（或 &apos;export LIBRARY_PATH=/usr/lib/wsl/lib:$LIBRARY_PATH&apos;），然后重新运行；&apos;ldconfig -p | grep libcuda&apos; 应列出该文件夹（如果没有，请运行 &apos;sudo ldconfig&apos;）。不要在 WSL 2 中安装 Linux 版 NVIDIA 驱动程序：libcuda 由 Windows 驱动程序提供。</translation>
    </message>
    <message>
        <source>Triton found no C compiler: it compiles a small launcher for its GPU kernels on first use, and neither CC nor a compiler on PATH was found.</source>
        <translation>Triton 找不到 C 编译器：它在首次使用时要为其 GPU 内核编译一个小型启动器，但既没有设置 CC，PATH 中也找不到编译器。</translation>
    </message>
    <message>
        <source>Install a C compiler: &apos;sudo apt install build-essential&apos; (Debian, Ubuntu; in a slim container image too), &apos;sudo dnf install gcc&apos; (Fedora, RHEL); or name one with &apos;export CC=/usr/bin/gcc&apos;. Then run the program again.</source>
        <translation>请安装 C 编译器：&apos;sudo apt install build-essential&apos;（Debian、Ubuntu；slim 容器镜像中同样适用）、&apos;sudo dnf install gcc&apos;（Fedora、RHEL）；或用 &apos;export CC=/usr/bin/gcc&apos; 指定一个编译器。然后重新运行程序。</translation>
    </message>
    <message>
        <source>The NVIDIA driver could not load the program&apos;s GPU code (error 222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION): its PTX was compiled by a newer CUDA than this driver supports.</source>
        <translation>NVIDIA 驱动程序无法加载程序的 GPU 代码（错误 222，CUDA_ERROR_UNSUPPORTED_PTX_VERSION）：其 PTX 是由比此驱动程序所支持版本更新的 CUDA 编译的。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to one at least as new as the CUDA the program, its wheel or its container was built with (&apos;gpuwizard detect&apos; shows the installed driver). Or install a build of the program (wheel, container image) made with an older CUDA.</source>
        <translation>请将 NVIDIA 驱动程序更新到至少与构建该程序（或其 wheel、容器）所用 CUDA 同样新的版本（&apos;gpuwizard detect&apos; 会显示已安装的驱动程序）。或者安装用较旧 CUDA 构建的程序版本（wheel、容器镜像）。</translation>
    </message>
    <message>
        <source>The NVIDIA driver could not load the program&apos;s GPU code (error 222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION): its PTX was compiled by CUDA {cuda}, newer than this driver supports.</source>
        <translation>NVIDIA 驱动程序无法加载程序的 GPU 代码（错误 222，CUDA_ERROR_UNSUPPORTED_PTX_VERSION）：其 PTX 由 CUDA {cuda} 编译，比此驱动程序支持的版本更新。</translation>
    </message>
    <message>
        <source>PTX from CUDA {cuda} needs NVIDIA driver {min_driver} or newer (the driver CUDA {cuda} ships with). Update the driver (&apos;gpuwizard detect&apos; shows the installed one). Or install a build of the program (wheel, container image) made with an older CUDA.</source>
        <translation>CUDA {cuda} 生成的 PTX 需要 NVIDIA 驱动程序 {min_driver} 或更高版本（即 CUDA {cuda} 自带的驱动程序版本）。请更新驱动程序（&apos;gpuwizard detect&apos; 会显示已安装的驱动程序）。或者安装用较旧 CUDA 构建的程序版本（wheel、容器镜像）。</translation>
    </message>
    <message>
        <source>The driver here is {driver}; PTX from CUDA {cuda} needs NVIDIA driver {min_driver} or newer (the driver CUDA {cuda} ships with). Update the driver (&apos;gpuwizard detect&apos; shows the installed one). Or install a build of the program (wheel, container image) made with an older CUDA.</source>
        <translation>此处的驱动程序版本为 {driver}；CUDA {cuda} 生成的 PTX 需要 NVIDIA 驱动程序 {min_driver} 或更高版本（即 CUDA {cuda} 自带的驱动程序版本）。请更新驱动程序（&apos;gpuwizard detect&apos; 会显示已安装的驱动程序）。或者安装用较旧 CUDA 构建的程序版本（wheel、容器镜像）。</translation>
    </message>
    <message>
        <source>llama.cpp (ggml) ran out of GPU memory while allocating its buffers: the model&apos;s layers, its context (KV cache) and its compute buffers do not fit.</source>
        <translation>llama.cpp（ggml）在分配缓冲区时显存不足：模型的各层、上下文（KV 缓存）和计算缓冲区放不下。</translation>
    </message>
    <message>
        <source>Put fewer layers on the GPU: lower -ngl (--n-gpu-layers), for example -ngl 20, and raise it step by step; use a smaller context (-c 4096) or a quantised KV cache (--cache-type-k q8_0 --cache-type-v q8_0); or take a smaller quantisation of the model (a Q4_K_M file instead of Q8_0). Close other programs that use the GPU (&apos;nvidia-smi&apos; lists them).</source>
        <translation>减少放到 GPU 上的层数：降低 -ngl（--n-gpu-layers），例如 -ngl 20，再逐步调高；使用更小的上下文（-c 4096）或量化的 KV 缓存（--cache-type-k q8_0 --cache-type-v q8_0）；或者使用量化程度更高、体积更小的模型版本（用 Q4_K_M 文件代替 Q8_0）。关闭其他占用 GPU 的程序（&apos;nvidia-smi&apos; 会列出它们）。</translation>
    </message>
    <message>
        <source>llama.cpp (ggml) could not allocate {size} on GPU {device}: the model&apos;s layers, its context (KV cache) and its compute buffers do not fit.</source>
        <translation>llama.cpp（ggml）无法在 GPU {device} 上分配 {size}：模型的各层、上下文（KV 缓存）和计算缓冲区放不下。</translation>
    </message>
    <message>
        <source>Put fewer layers on the GPU: lower -ngl (--n-gpu-layers), for example -ngl 20, and raise it step by step; use a smaller context (-c 4096) or a quantised KV cache (--cache-type-k q8_0 --cache-type-v q8_0); or take a smaller quantisation of the model (a Q4_K_M file instead of Q8_0). Close other programs that use the GPU (&apos;nvidia-smi&apos; lists them). With several GPUs, move layers away from GPU {device} with --tensor-split (for example --tensor-split 3,1).</source>
        <translation>减少放到 GPU 上的层数：降低 -ngl（--n-gpu-layers），例如 -ngl 20，再逐步调高；使用更小的上下文（-c 4096）或量化的 KV 缓存（--cache-type-k q8_0 --cache-type-v q8_0）；或者使用量化程度更高、体积更小的模型版本（用 Q4_K_M 文件代替 Q8_0）。关闭其他占用 GPU 的程序（&apos;nvidia-smi&apos; 会列出它们）。使用多块 GPU 时，可用 --tensor-split 将部分层从 GPU {device} 移走（例如 --tensor-split 3,1）。</translation>
    </message>
    <message>
        <source>Ollama&apos;s runner (llama.cpp) ran out of GPU memory while loading the model: its layers, context and compute buffers do not fit.</source>
        <translation>Ollama 的 runner（llama.cpp）在加载模型时显存不足：模型的各层、上下文和计算缓冲区放不下。</translation>
    </message>
    <message>
        <source>Let Ollama put fewer layers on the GPU: in &apos;ollama run&apos; type &apos;/set parameter num_gpu 20&apos; (or set num_gpu in the Modelfile or the API&apos;s options) and raise it step by step; use a smaller context (/set parameter num_ctx 4096, or OLLAMA_CONTEXT_LENGTH=4096 for the server) or a smaller quantisation of the model (a q4_K_M tag). Close other programs that use the GPU (&apos;nvidia-smi&apos; lists them).</source>
        <translation>让 Ollama 把更少的层放到 GPU 上：在 &apos;ollama run&apos; 中输入 &apos;/set parameter num_gpu 20&apos;（或在 Modelfile 或 API 的 options 中设置 num_gpu），再逐步调高；使用更小的上下文（/set parameter num_ctx 4096，或为服务器设置 OLLAMA_CONTEXT_LENGTH=4096）或量化程度更高、体积更小的模型版本（q4_K_M 标签）。关闭其他占用 GPU 的程序（&apos;nvidia-smi&apos; 会列出它们）。</translation>
    </message>
    <message>
        <source>Ollama&apos;s runner (llama.cpp) could not allocate {size} on GPU {device} while loading the model: its layers, context and compute buffers do not fit.</source>
        <translation>Ollama 的 runner（llama.cpp）在加载模型时无法在 GPU {device} 上分配 {size}：模型的各层、上下文和计算缓冲区放不下。</translation>
    </message>
    <message>
        <source>vLLM refused to load the model in bfloat16: the {gpu} GPU has compute capability {capability}, and bfloat16 needs 8.0 (Ampere) or newer.</source>
        <translation>vLLM 拒绝以 bfloat16 加载模型：{gpu} GPU 的计算能力为 {capability}，而 bfloat16 需要 8.0（Ampere）或更高。</translation>
    </message>
    <message>
        <source>Start vLLM in half precision: &apos;vllm serve MODEL --dtype half&apos; (in Python: LLM(model=..., dtype=&quot;half&quot;)); programs built on vLLM usually pass this on as their own dtype option (float16). Models trained in bfloat16 normally run in float16.</source>
        <translation>以半精度启动 vLLM：&apos;vllm serve MODEL --dtype half&apos;（Python 中：LLM(model=..., dtype=&quot;half&quot;)）；基于 vLLM 的程序通常会通过自己的 dtype 选项（float16）传递此设置。以 bfloat16 训练的模型通常也能以 float16 运行。</translation>
    </message>
    <message>
        <source>&apos;--dtype half&apos; gets past this check, but vLLM needs compute capability 7.0 or newer for any precision, so it cannot run on this GPU. Use a program that still supports it: llama.cpp or Ollama with a GGUF model, or Hugging Face transformers with torch_dtype=torch.float16.</source>
        <translation>&apos;--dtype half&apos; 可以通过这项检查，但 vLLM 在任何精度下都需要计算能力 7.0 或更高，因此无法在此 GPU 上运行。请使用仍支持该 GPU 的程序：llama.cpp 或 Ollama 搭配 GGUF 模型，或 Hugging Face transformers 搭配 torch_dtype=torch.float16。</translation>
    </message>
    <message>
        <source>vLLM&apos;s KV cache is too small for one request of the model&apos;s maximum sequence length.</source>
        <translation>vLLM 的 KV 缓存太小，容纳不下一个达到模型最大序列长度的请求。</translation>
    </message>
    <message>
        <source>Start vLLM with a shorter maximum length (--max-model-len, for example 8192; in Python: LLM(..., max_model_len=8192)), or give vLLM more of the GPU: raise --gpu-memory-utilization (default 0.9; for example 0.95) if nothing else runs on it, spread the model over more GPUs (--tensor-parallel-size 2), or use a quantised model or an fp8 KV cache (--kv-cache-dtype fp8).</source>
        <translation>以更短的最大长度启动 vLLM（--max-model-len，例如 8192；Python 中：LLM(..., max_model_len=8192)），或者给 vLLM 分配更多 GPU 显存：如果 GPU 上没有运行其他程序，调高 --gpu-memory-utilization（默认 0.9，例如改为 0.95）；将模型分布到更多 GPU 上（--tensor-parallel-size 2）；或者使用量化模型或 fp8 KV 缓存（--kv-cache-dtype fp8）。</translation>
    </message>
    <message>
        <source>vLLM&apos;s KV cache holds {kv_tokens} tokens, fewer than the model&apos;s maximum sequence length ({max_len}): one full-length request would not fit.</source>
        <translation>vLLM 的 KV 缓存可容纳 {kv_tokens} 个 token，少于模型的最大序列长度（{max_len}）：一个满长度的请求放不下。</translation>
    </message>
    <message>
        <source>Start vLLM with a shorter maximum length: &apos;--max-model-len {kv_tokens}&apos; or less (in Python: LLM(..., max_model_len={kv_tokens})), or give vLLM more of the GPU: raise --gpu-memory-utilization (default 0.9; for example 0.95) if nothing else runs on it, spread the model over more GPUs (--tensor-parallel-size 2), or use a quantised model or an fp8 KV cache (--kv-cache-dtype fp8).</source>
        <translation>以更短的最大长度启动 vLLM：&apos;--max-model-len {kv_tokens}&apos; 或更小（Python 中：LLM(..., max_model_len={kv_tokens})），或者给 vLLM 分配更多 GPU 显存：如果 GPU 上没有运行其他程序，调高 --gpu-memory-utilization（默认 0.9，例如改为 0.95）；将模型分布到更多 GPU 上（--tensor-parallel-size 2）；或者使用量化模型或 fp8 KV 缓存（--kv-cache-dtype fp8）。</translation>
    </message>
    <message>
        <source>vLLM needs {needed} GiB of KV cache for one request of the model&apos;s maximum length ({max_len} tokens), but only {available} GiB is left for it; vLLM estimates that {estimate} tokens fit.</source>
        <translation>vLLM 需要 {needed} GiB 的 KV 缓存来处理一个达到模型最大长度（{max_len} 个 token）的请求，但只剩 {available} GiB 可用；vLLM 估计可容纳 {estimate} 个 token。</translation>
    </message>
    <message>
        <source>Start vLLM with a shorter maximum length: &apos;--max-model-len {estimate}&apos; or less (in Python: LLM(..., max_model_len={estimate})), or give vLLM more of the GPU: raise --gpu-memory-utilization (default 0.9; for example 0.95) if nothing else runs on it, spread the model over more GPUs (--tensor-parallel-size 2), or use a quantised model or an fp8 KV cache (--kv-cache-dtype fp8).</source>
        <translation>以更短的最大长度启动 vLLM：&apos;--max-model-len {estimate}&apos; 或更小（Python 中：LLM(..., max_model_len={estimate})），或者给 vLLM 分配更多 GPU 显存：如果 GPU 上没有运行其他程序，调高 --gpu-memory-utilization（默认 0.9，例如改为 0.95）；将模型分布到更多 GPU 上（--tensor-parallel-size 2）；或者使用量化模型或 fp8 KV 缓存（--kv-cache-dtype fp8）。</translation>
    </message>
    <message>
        <source>vLLM needs {needed} GiB of KV cache for one request of the model&apos;s maximum length ({max_len} tokens), but only {available} GiB is left for it.</source>
        <translation>vLLM 需要 {needed} GiB 的 KV 缓存来处理一个达到模型最大长度（{max_len} 个 token）的请求，但只剩 {available} GiB 可用。</translation>
    </message>
    <message>
        <source>vLLM found no GPU memory left for its KV cache after loading the model: the weights and the test run fill what --gpu-memory-utilization allows.</source>
        <translation>vLLM 在加载模型后没有剩余显存可用于 KV 缓存：模型权重和试运行已占满 --gpu-memory-utilization 允许的全部显存。</translation>
    </message>
    <message>
        <source>Raise --gpu-memory-utilization (the share of the GPU vLLM may use; default 0.9, for example 0.95), do not lower it; close other programs that use the GPU (&apos;nvidia-smi&apos; lists them; two vLLM servers on one GPU each need their own share). If it still fails, use a smaller or quantised model, more GPUs (--tensor-parallel-size 2), or a shorter --max-model-len.</source>
        <translation>请调高 --gpu-memory-utilization（vLLM 可使用的 GPU 显存比例；默认 0.9，例如改为 0.95），而不是调低；关闭其他占用 GPU 的程序（&apos;nvidia-smi&apos; 会列出它们；同一块 GPU 上的两个 vLLM 服务器各自需要自己的份额）。如果仍然失败，请使用更小的模型或量化模型、更多 GPU（--tensor-parallel-size 2），或更短的 --max-model-len。</translation>
    </message>
    <message>
        <source>NCCL could not use direct peer-to-peer (P2P) access between two GPUs ({warning}). The GPUs, their PCIe topology or the virtual machine do not support it.</source>
        <translation>NCCL 无法在两块 GPU 之间使用直接点对点（P2P）访问（{warning}）。这些 GPU、其 PCIe 拓扑或虚拟机不支持该功能。</translation>
    </message>
    <message>
        <source>Make NCCL use shared memory instead: set NCCL_P2P_DISABLE=1 in the environment of every process that uses the GPUs (export it before torchrun or accelerate launch; in Ray, in runtime_env&apos;s env_vars, since Ray&apos;s workers do not inherit the shell; in Docker, with -e NCCL_P2P_DISABLE=1). vLLM also does its own P2P: add --disable-custom-all-reduce. Most GeForce cards (RTX 3090 without NVLink, RTX 4090, RTX 5090) have no P2P over PCIe; on data-centre GPUs, check that IOMMU/ACS is off in the BIOS and that the VM passes the GPUs through together.</source>
        <translation>让 NCCL 改用共享内存：在每个使用 GPU 的进程的环境中设置 NCCL_P2P_DISABLE=1（在 torchrun 或 accelerate launch 之前 export；在 Ray 中，设置在 runtime_env 的 env_vars 里，因为 Ray 的 worker 不会继承 shell 的环境；在 Docker 中，使用 -e NCCL_P2P_DISABLE=1）。vLLM 还会自行使用 P2P：请添加 --disable-custom-all-reduce。大多数 GeForce 显卡（无 NVLink 的 RTX 3090、RTX 4090、RTX 5090）不支持通过 PCIe 进行 P2P；对于数据中心 GPU，请检查 BIOS 中是否已关闭 IOMMU/ACS，以及虚拟机是否将这些 GPU 一起直通。</translation>
    </message>
    <message>
        <source>NCCL {version} asks for more shared memory per block ({needed} bytes) than this GPU provides ({available} bytes), so its kernels cannot start: this NCCL release does not support the GPU.</source>
        <translation>NCCL {version} 请求的每块共享内存（{needed} 字节）超过了此 GPU 所能提供的（{available} 字节），因此其内核无法启动：此 NCCL 版本不支持该 GPU。</translation>
    </message>
    <message>
        <source>Upgrade NCCL to 2.26 or newer. With PyTorch, upgrade the NCCL wheel it loads (&apos;pip install -U nvidia-nccl-cu12&apos;, or nvidia-nccl-cu13 for a CUDA 13 build) or PyTorch itself; a system NCCL (nccl-tests, your own builds): install NCCL 2.26 or newer from NVIDIA&apos;s repository.</source>
        <translation>请将 NCCL 升级到 2.26 或更高版本。使用 PyTorch 时，请升级它加载的 NCCL wheel（&apos;pip install -U nvidia-nccl-cu12&apos;，CUDA 13 构建版本则为 nvidia-nccl-cu13）或升级 PyTorch 本身；系统 NCCL（nccl-tests、您自己构建的程序）：请从 NVIDIA 的软件仓库安装 NCCL 2.26 或更高版本。</translation>
    </message>
    <message>
        <source>vLLM found no GPU platform to run on: its device type is empty, because neither NVIDIA&apos;s management library nor torch found a usable GPU in this process.</source>
        <translation>vLLM 找不到可运行的 GPU 平台：其设备类型为空，因为 NVIDIA 管理库和 torch 都未在此进程中找到可用的 GPU。</translation>
    </message>
    <message>
        <source>Check in the same environment: &apos;nvidia-smi&apos; and &apos;python -c &quot;import torch; print(torch.cuda.is_available(), torch.version.cuda)&quot;&apos;. In a container, give it the GPU (&apos;docker run --gpus all&apos;, with the NVIDIA Container Toolkit) and put the driver&apos;s libraries on the library path (on GKE nodes: &apos;export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:$LD_LIBRARY_PATH&apos;). A torch without CUDA (a +cpu build) needs the CUDA build vLLM asks for. On a machine without an NVIDIA GPU, install vLLM&apos;s build for that hardware (docs.vllm.ai, &apos;Installation&apos;).</source>
        <translation>请在同一环境中检查：&apos;nvidia-smi&apos; 和 &apos;python -c &quot;import torch; print(torch.cuda.is_available(), torch.version.cuda)&quot;&apos;。在容器中，请为容器提供 GPU（&apos;docker run --gpus all&apos;，需配合 NVIDIA Container Toolkit），并将驱动程序的库加入库路径（在 GKE 节点上：&apos;export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:$LD_LIBRARY_PATH&apos;）。不带 CUDA 的 torch（+cpu 构建版本）需要换成 vLLM 所要求的 CUDA 构建版本。在没有 NVIDIA GPU 的机器上，请安装适用于该硬件的 vLLM 构建版本（docs.vllm.ai，&apos;Installation&apos;）。</translation>
    </message>
    <message>
        <source>NCCL, the library that moves data between GPUs, failed: {reason}.</source>
        <translation>在 GPU 之间传输数据的库 NCCL 出错：{reason}。</translation>
    </message>
    <message>
        <source>Run again with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,P2P,NET for start-up errors): NCCL&apos;s WARN lines name the call that failed. Frequent causes: GPUs without peer-to-peer access (set NCCL_P2P_DISABLE=1), too little shared memory in a container (docker run --ipc=host, or --shm-size=16g), the wrong network interface between machines (NCCL_SOCKET_IFNAME=eth0), and an NCCL or a framework built for a newer CUDA than the driver supports (&apos;gpuwizard detect&apos; shows the driver).</source>
        <translation>使用 NCCL_DEBUG=INFO 重新运行（针对启动阶段的错误，再加上 NCCL_DEBUG_SUBSYS=INIT,P2P,NET）：NCCL 的 WARN 行会指出失败的调用。常见原因：GPU 之间不支持点对点访问（设置 NCCL_P2P_DISABLE=1）、容器中共享内存太少（docker run --ipc=host，或 --shm-size=16g）、机器之间使用了错误的网络接口（NCCL_SOCKET_IFNAME=eth0），以及 NCCL 或框架是针对比驱动程序所支持版本更新的 CUDA 构建的（&apos;gpuwizard detect&apos; 会显示驱动程序）。</translation>
    </message>
    <message>
        <source>NCCL could not create its shared-memory segment in /dev/shm ({warning}): the GPUs of one machine exchange data through it, and a container&apos;s /dev/shm is 64 MB unless it is given more.</source>
        <translation>NCCL 无法在 /dev/shm 中创建其共享内存段（{warning}）：同一台机器上的 GPU 通过它交换数据，而容器的 /dev/shm 除非另行分配，否则只有 64 MB。</translation>
    </message>
    <message>
        <source>Give the container more shared memory: add &apos;--shm-size=16g&apos; (or &apos;--ipc=host&apos;) to its &apos;docker run&apos; command (Docker Compose: shm_size: &apos;16gb&apos;; Kubernetes: an emptyDir volume with medium: Memory mounted at /dev/shm). Outside containers, check free space with &apos;df -h /dev/shm&apos;.</source>
        <translation>请为容器分配更多共享内存：在其 &apos;docker run&apos; 命令中添加 &apos;--shm-size=16g&apos;（或 &apos;--ipc=host&apos;）（Docker Compose：shm_size: &apos;16gb&apos;；Kubernetes：将 medium: Memory 的 emptyDir 卷挂载到 /dev/shm）。在容器之外，请用 &apos;df -h /dev/shm&apos; 检查可用空间。</translation>
    </message>
    <message>
        <source>NCCL, the library that moves data between GPUs, failed. Its warning: {warning}</source>
        <translation>在 GPU 之间传输数据的库 NCCL 出错。其警告：{warning}</translation>
    </message>
    <message>
        <source>This PyTorch has no {backend} for torch.distributed: PyTorch&apos;s builds for Windows and macOS, and its CPU-only builds, come without NCCL.</source>
        <translation>此 PyTorch 没有 torch.distributed 所需的 {backend}：PyTorch 的 Windows 和 macOS 版本以及仅 CPU 版本均不包含 NCCL。</translation>
    </message>
    <message>
        <source>On Windows or macOS, use the gloo backend (torch.distributed.init_process_group(backend=&quot;gloo&quot;); in a program&apos;s options, a &apos;gloo&apos; or &apos;ddp_backend&apos; setting), or run the program in Linux (WSL 2 on Windows). With a single GPU, start the program without torchrun / distributed mode. On Linux, install a CUDA build of PyTorch (for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;; check with python -c &quot;import torch.distributed as d; print(d.is_nccl_available())&quot;).</source>
        <translation>在 Windows 或 macOS 上，请使用 gloo 后端（torch.distributed.init_process_group(backend=&quot;gloo&quot;)；在程序的选项中，设置 &apos;gloo&apos; 或 &apos;ddp_backend&apos; 之类的选项），或者在 Linux 中运行程序（Windows 上可用 WSL 2）。只有一块 GPU 时，请不用 torchrun / 分布式模式启动程序。在 Linux 上，请安装 PyTorch 的 CUDA 版本（例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;；用 python -c &quot;import torch.distributed as d; print(d.is_nccl_available())&quot; 检查）。</translation>
    </message>
    <message>
        <source>PyTorch on Windows has no {backend} for torch.distributed: the program asked for it (NCCL is Linux-only).</source>
        <translation>Windows 上的 PyTorch 没有 torch.distributed 所需的 {backend}，但程序请求了它（NCCL 仅支持 Linux）。</translation>
    </message>
    <message>
        <source>Use the gloo backend instead (torch.distributed.init_process_group(backend=&quot;gloo&quot;); in a program&apos;s options, a &apos;gloo&apos; or &apos;ddp_backend&apos; setting). With a single GPU, start the program without torchrun / distributed mode. For fast multi-GPU training, run it in WSL 2, where PyTorch&apos;s Linux builds bring NCCL.</source>
        <translation>请改用 gloo 后端（torch.distributed.init_process_group(backend=&quot;gloo&quot;)；在程序的选项中，设置 &apos;gloo&apos; 或 &apos;ddp_backend&apos; 之类的选项）。只有一块 GPU 时，请不用 torchrun / 分布式模式启动程序。如需快速的多 GPU 训练，请在 WSL 2 中运行，PyTorch 的 Linux 版本自带 NCCL。</translation>
    </message>
    <message>
        <source>torch.distributed could not start its rendezvous store: PyTorch 2.4 and newer use libuv for it by default, and PyTorch&apos;s Windows builds have no libuv.</source>
        <translation>torch.distributed 无法启动其 rendezvous 存储：PyTorch 2.4 及更高版本默认为此使用 libuv，而 PyTorch 的 Windows 版本不包含 libuv。</translation>
    </message>
    <message>
        <source>This TensorFlow has no compiled kernels for the GPU&apos;s compute capability {capability}: the driver compiles them from PTX when TensorFlow starts, which can take 30 minutes or longer.</source>
        <translation>此 TensorFlow 没有针对该 GPU 计算能力 {capability} 编译的内核：驱动程序会在 TensorFlow 启动时从 PTX 编译这些内核，可能需要 30 分钟或更长时间。</translation>
    </message>
    <message>
        <source>Let the first start finish; to keep the compiled kernels for later starts, enlarge the driver&apos;s cache (CUDA_CACHE_MAXSIZE=4294967296). To avoid it, use a TensorFlow release built for this GPU generation (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; on Linux or WSL 2; NVIDIA&apos;s TensorFlow containers are built for their current GPUs).</source>
        <translation>请等待首次启动完成；若要在之后的启动中保留已编译的内核，请增大驱动程序的缓存（CUDA_CACHE_MAXSIZE=4294967296）。要避免这种情况，请使用针对这一代 GPU 构建的 TensorFlow 版本（在 Linux 或 WSL 2 上执行 &apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos;；NVIDIA 的 TensorFlow 容器针对其当前的 GPU 构建）。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s GPU kernels could not be loaded: the driver could not compile the PTX TensorFlow ships for this GPU (CUDA_ERROR_INVALID_PTX), so this TensorFlow has no kernels that run on it; the GPU is newer than the TensorFlow build.</source>
        <translation>无法加载 TensorFlow 的 GPU 内核：驱动程序无法为此 GPU 编译 TensorFlow 自带的 PTX（CUDA_ERROR_INVALID_PTX），因此此 TensorFlow 没有可在其上运行的内核；该 GPU 比此 TensorFlow 构建版本更新。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver and TensorFlow to the newest release (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; on Linux or WSL 2), and check the GPU with &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos;. If the error stays, this TensorFlow cannot run on this GPU: use NVIDIA&apos;s TensorFlow container (built for its current GPUs), build TensorFlow from source for the GPU&apos;s compute capability (TF_CUDA_COMPUTE_CAPABILITIES), or use PyTorch, whose CUDA 12.8 and newer builds support RTX 50 GPUs.</source>
        <translation>请将 NVIDIA 驱动程序和 TensorFlow 更新到最新版本（在 Linux 或 WSL 2 上执行 &apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos;），并使用 &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; 检查 GPU。如果错误仍然存在，说明此 TensorFlow 无法在此 GPU 上运行：请使用 NVIDIA 的 TensorFlow 容器（针对其当前 GPU 构建），针对该 GPU 的计算能力从源代码构建 TensorFlow（TF_CUDA_COMPUTE_CAPABILITIES），或改用 PyTorch，其 CUDA 12.8 及更高版本的构建支持 RTX 50 系列 GPU。</translation>
    </message>
    <message>
        <source>This TensorFlow has no compiled kernels for the GPU&apos;s compute capability {capability} (Blackwell, RTX 50): the driver must compile them from older PTX at start, which takes long and often fails (CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_PTX and &apos;no kernel image&apos; errors after it).</source>
        <translation>此 TensorFlow 没有针对该 GPU 计算能力 {capability}（Blackwell，RTX 50）编译的内核：驱动程序必须在启动时从较旧的 PTX 编译它们，耗时很长且经常失败（随后会出现 CUDA_ERROR_INVALID_HANDLE、CUDA_ERROR_INVALID_PTX 和 &apos;no kernel image&apos; 错误）。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver (its PTX compiler must know the PTX TensorFlow ships) and TensorFlow to the newest release (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; on Linux or WSL 2), and enlarge the driver&apos;s cache so that a successful compilation is kept (CUDA_CACHE_MAXSIZE=4294967296). If errors follow, this TensorFlow cannot run on this GPU: build TensorFlow from source for compute capability {capability} (TF_CUDA_COMPUTE_CAPABILITIES), or use PyTorch, whose CUDA 12.8 and newer builds support RTX 50 GPUs.</source>
        <translation>请将 NVIDIA 驱动程序（其 PTX 编译器必须能识别 TensorFlow 附带的 PTX）和 TensorFlow 更新到最新版本（在 Linux 或 WSL 2 上执行 &apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos;），并增大驱动程序的缓存，以便保留成功的编译结果（CUDA_CACHE_MAXSIZE=4294967296）。如果仍然出错，说明此 TensorFlow 无法在此 GPU 上运行：请针对计算能力 {capability} 从源码构建 TensorFlow（TF_CUDA_COMPUTE_CAPABILITIES），或者改用 PyTorch，其 CUDA 12.8 及更高版本的构建支持 RTX 50 系列 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow {tf_version} on native Windows sees no GPU: TensorFlow 2.11 and newer have no GPU support on native Windows (2.10 was the last release with it), whatever CUDA and cuDNN are installed.</source>
        <translation>原生 Windows 上的 TensorFlow {tf_version} 看不到 GPU：TensorFlow 2.11 及更高版本在原生 Windows 上不支持 GPU（2.10 是最后一个支持 GPU 的版本），无论安装了哪个版本的 CUDA 和 cuDNN。</translation>
    </message>
    <message>
        <source>Use TensorFlow in WSL 2: install Ubuntu (&apos;wsl --install&apos;), then inside it &apos;pip install &quot;tensorflow[and-cuda]&quot;&apos; (the Windows NVIDIA driver serves WSL 2; install no Linux driver). Or stay on native Windows with TensorFlow 2.10, the last with GPU support: Python 3.10 or older, &apos;pip install &quot;tensorflow&lt;2.11&quot;&apos;, with CUDA 11.2 and cuDNN 8.1 (for example &apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;).</source>
        <translation>请在 WSL 2 中使用 TensorFlow：安装 Ubuntu（&apos;wsl --install&apos;），然后在其中执行 &apos;pip install &quot;tensorflow[and-cuda]&quot;&apos;（Windows 上的 NVIDIA 驱动程序同时为 WSL 2 提供支持；请勿安装 Linux 驱动程序）。或者留在原生 Windows 上，使用最后一个支持 GPU 的版本 TensorFlow 2.10：Python 3.10 或更早版本，&apos;pip install &quot;tensorflow&lt;2.11&quot;&apos;，搭配 CUDA 11.2 和 cuDNN 8.1（例如 &apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;）。</translation>
    </message>
    <message>
        <source>Ollama refused to load the model: it estimates that the model needs {needed} of system memory, and only {available} is available.</source>
        <translation>Ollama 拒绝加载模型：它估计该模型需要 {needed} 的系统内存，而可用的只有 {available}。</translation>
    </message>
    <message>
        <source>Free memory (close other programs; in a virtual machine, a container or WSL 2, give it more memory or swap), or use a smaller model or quantisation (a q4_K_M tag) and a smaller context (OLLAMA_CONTEXT_LENGTH=4096 for the server, or num_ctx). If the estimate is far above the size of the model&apos;s file, update Ollama: its estimates for new model families are corrected in later releases.</source>
        <translation>请释放内存（关闭其他程序；在虚拟机、容器或 WSL 2 中，为其分配更多内存或交换空间），或使用更小的模型或量化版本（q4_K_M 标签）以及更小的上下文（服务器设置 OLLAMA_CONTEXT_LENGTH=4096，或 num_ctx）。如果估计值远大于模型文件的大小，请更新 Ollama：它对新模型系列的估计会在后续版本中修正。</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver is loaded but could not initialise the GPU: the kernel log says &apos;RmInitAdapter failed&apos;. Until it does, nvidia-smi says &apos;No devices were found&apos; and CUDA finds no GPU.</source>
        <translation>NVIDIA 内核驱动已加载，但无法初始化 GPU：内核日志显示 &apos;RmInitAdapter failed&apos;。在初始化成功之前，nvidia-smi 会显示 &apos;No devices were found&apos;，CUDA 也找不到 GPU。</translation>
    </message>
    <message>
        <source>Read the NVRM lines before that one, and any Xid, with &apos;sudo dmesg | grep -iE &quot;NVRM|Xid&quot;&apos;: they name the step that failed. Check the GPU&apos;s power cables and seating, and that &apos;Above 4G Decoding&apos; is enabled in the firmware (BIOS/UEFI) settings. Check that the kernel module is the driver&apos;s own: &apos;cat /proc/driver/nvidia/version&apos; and &apos;modinfo nvidia | grep ^version&apos; must name the same version as the driver you installed; if not, reinstall the driver and restart.</source>
        <translation>请用 &apos;sudo dmesg | grep -iE &quot;NVRM|Xid&quot;&apos; 查看该行之前的 NVRM 行以及所有 Xid：它们会指出失败的步骤。请检查 GPU 的电源线和插接是否牢固，以及固件（BIOS/UEFI）设置中是否已启用 &apos;Above 4G Decoding&apos;。请检查内核模块是否属于该驱动本身：&apos;cat /proc/driver/nvidia/version&apos; 和 &apos;modinfo nvidia | grep ^version&apos; 显示的版本必须与您安装的驱动版本相同；否则，请重新安装驱动并重启。</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver could not initialise the GPU: its BAR1 window ({bar1_mib} MiB) is too small to map the GPU&apos;s memory ({fb_mib} MiB), which this driver required. Resizable BAR is off, or Above 4G Decoding, which it needs, is off in the machine&apos;s firmware.</source>
        <translation>NVIDIA 内核驱动无法初始化 GPU：其 BAR1 窗口（{bar1_mib} MiB）太小，无法映射 GPU 的显存（{fb_mib} MiB），而此驱动要求能够映射。计算机固件中的 Resizable BAR 已关闭，或者它所需要的 Above 4G Decoding 已关闭。</translation>
    </message>
    <message>
        <source>Enable &apos;Above 4G Decoding&apos; and &apos;Resizable BAR&apos; (&apos;Re-Size BAR Support&apos;) in the machine&apos;s firmware (BIOS/UEFI) settings and restart; &apos;sudo lspci -vv -d 10de: | grep -i &quot;Region 1&quot;&apos; should then show a region at least as large as the GPU&apos;s memory. Where the firmware has neither setting: on a Turing GPU (RTX 20xx) with the open kernel module, the report&apos;s GPU worked with the proprietary kernel module of the same driver, and with driver 570.153.02 or older (NVIDIA/open-gpu-kernel-modules#934).</source>
        <translation>请在计算机的固件（BIOS/UEFI）设置中启用 &apos;Above 4G Decoding&apos; 和 &apos;Resizable BAR&apos;（&apos;Re-Size BAR Support&apos;），然后重启；之后 &apos;sudo lspci -vv -d 10de: | grep -i &quot;Region 1&quot;&apos; 应显示一个至少与 GPU 显存一样大的区域。如果固件中没有这两个设置：在使用开源内核模块的 Turing GPU（RTX 20xx）上，报告中的 GPU 在改用同一驱动的专有内核模块后可以正常工作，改用 570.153.02 或更早的驱动也可以（NVIDIA/open-gpu-kernel-modules#934）。</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver could not start the GPU&apos;s firmware (GSP, the GPU System Processor), so the GPU stays uninitialised: nvidia-smi says &apos;No devices were found&apos; and CUDA finds no GPU.</source>
        <translation>NVIDIA 内核驱动无法启动 GPU 的固件（GSP，即 GPU System Processor），因此 GPU 仍未初始化：nvidia-smi 显示 &apos;No devices were found&apos;，CUDA 也找不到 GPU。</translation>
    </message>
    <message>
        <source>Power the machine off fully and start it again: lines such as &apos;WPR2 already up&apos; or &apos;GFW boot&apos; mean the GPU kept a bad state. Check that the firmware files match the kernel module: &apos;cat /proc/driver/nvidia/version&apos; and &apos;ls /lib/firmware/nvidia/&apos; must name the same driver version; if not, reinstall the driver. If it still fails, install another driver branch. On a GPU before Blackwell, the proprietary kernel module (not the open one) can run without the GSP firmware: add &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; to /etc/modprobe.d/nvidia-gsp.conf, run &apos;sudo update-initramfs -u&apos; (Debian, Ubuntu) or &apos;sudo dracut -f&apos; (Fedora), and restart.</source>
        <translation>请将计算机完全关机后再启动：诸如 &apos;WPR2 already up&apos; 或 &apos;GFW boot&apos; 之类的行表示 GPU 保留了错误的状态。请检查固件文件是否与内核模块匹配：&apos;cat /proc/driver/nvidia/version&apos; 和 &apos;ls /lib/firmware/nvidia/&apos; 必须显示相同的驱动版本；否则，请重新安装驱动。如果仍然失败，请安装另一个驱动分支。在 Blackwell 之前的 GPU 上，专有内核模块（而非开源模块）可以在不使用 GSP 固件的情况下运行：将 &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; 添加到 /etc/modprobe.d/nvidia-gsp.conf，运行 &apos;sudo update-initramfs -u&apos;（Debian、Ubuntu）或 &apos;sudo dracut -f&apos;（Fedora），然后重启。</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver reported {xids}. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>NVIDIA 内核驱动报告了 {xids}。NVIDIA 的 Xid 文档：{meanings}。</translation>
    </message>
    <message>
        <source>An Xid that names a program (pid=, name=) usually comes from that program&apos;s error: run it again and read its own error message (for CUDA programs, &apos;CUDA_LAUNCH_BLOCKING=1&apos; names the failing call). If the GPU stays unusable (&apos;nvidia-smi&apos; fails or hangs), reset it with &apos;sudo nvidia-smi -r&apos; while nothing uses it, or restart the machine. If the Xid recurs without a program&apos;s fault, check the GPU&apos;s power, cooling and seating. NVIDIA&apos;s list: https://docs.nvidia.com/deploy/xid-errors/</source>
        <translation>指明了程序（pid=、name=）的 Xid 通常源于该程序自身的错误：请重新运行它并阅读它自己的错误消息（对于 CUDA 程序，&apos;CUDA_LAUNCH_BLOCKING=1&apos; 可以指出失败的调用）。如果 GPU 仍无法使用（&apos;nvidia-smi&apos; 失败或卡住），请在没有程序使用它时用 &apos;sudo nvidia-smi -r&apos; 重置它，或重启计算机。如果 Xid 在没有程序出错的情况下反复出现，请检查 GPU 的供电、散热和插接。NVIDIA 的列表：https://docs.nvidia.com/deploy/xid-errors/</translation>
    </message>
    <message>
        <source>The GPU fell off the bus ({xids}): it stopped answering on PCIe, so every program using it failed. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>GPU 已从总线上掉线（{xids}）：它在 PCIe 上停止响应，因此所有使用它的程序都失败了。NVIDIA 的 Xid 文档：{meanings}。</translation>
    </message>
    <message>
        <source>Restart the machine: a GPU that fell off the bus does not come back without one. Then check what NVIDIA names as causes: the GPU&apos;s power (a power supply large enough, every PCIe power cable plugged in, no splitters), its seating and any riser cable, and its temperature and power under load (&apos;nvidia-smi -q -d TEMPERATURE,POWER&apos;). If it recurs, try another PCIe slot; a GPU that keeps falling off may be failing.</source>
        <translation>请重启计算机：从总线上掉线的 GPU 不重启就无法恢复。然后检查 NVIDIA 列出的原因：GPU 的供电（电源功率足够、每根 PCIe 供电线都已插好、不使用分线器）、其插接情况和任何延长线（riser），以及其负载下的温度和功耗（&apos;nvidia-smi -q -d TEMPERATURE,POWER&apos;）。如果反复出现，请尝试换一个 PCIe 插槽；不断掉线的 GPU 可能正在损坏。</translation>
    </message>
    <message>
        <source>The GPU reported a memory (ECC) error: {xids}. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>GPU 报告了显存（ECC）错误：{xids}。NVIDIA 的 Xid 文档：{meanings}。</translation>
    </message>
    <message>
        <source>Reset the GPU so that pending row remaps (or page retirements) take effect: &apos;sudo nvidia-smi -r&apos; while nothing uses it, or restart the machine. Then check its memory with &apos;nvidia-smi -q -d ECC,ROW_REMAPPER&apos; (GPUs before Ampere: &apos;nvidia-smi -q -d ECC,PAGE_RETIREMENT&apos;): &apos;Remapping Failure Occurred: Yes&apos;, or uncorrectable errors that keep growing, mean failing GPU memory; contact the GPU&apos;s seller or NVIDIA support.</source>
        <translation>请重置 GPU，使待处理的行重映射（或页面退役）生效：在没有程序使用它时运行 &apos;sudo nvidia-smi -r&apos;，或重启计算机。然后用 &apos;nvidia-smi -q -d ECC,ROW_REMAPPER&apos; 检查其显存（Ampere 之前的 GPU：&apos;nvidia-smi -q -d ECC,PAGE_RETIREMENT&apos;）：出现 &apos;Remapping Failure Occurred: Yes&apos;，或不可纠正的错误持续增加，说明 GPU 显存正在损坏；请联系 GPU 的销售商或 NVIDIA 支持。</translation>
    </message>
    <message>
        <source>The GPU&apos;s firmware (GSP, the GPU System Processor) failed: {xids}. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>GPU 的固件（GSP，即 GPU System Processor）出现故障：{xids}。NVIDIA 的 Xid 文档：{meanings}。</translation>
    </message>
    <message>
        <source>Restart the machine: the GPU usually needs a reset. If it recurs, update to the newest driver of its branch, or try another branch. On a GPU before Blackwell, the proprietary kernel module (not the open one) can run without the GSP firmware: add &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; to /etc/modprobe.d/nvidia-gsp.conf, run &apos;sudo update-initramfs -u&apos; (Debian, Ubuntu) or &apos;sudo dracut -f&apos; (Fedora), and restart; &apos;nvidia-smi -q | grep -i &quot;GSP Firmware&quot;&apos; then shows N/A.</source>
        <translation>请重启计算机：GPU 通常需要重置。如果反复出现，请更新到该分支的最新驱动，或尝试另一个分支。在 Blackwell 之前的 GPU 上，专有内核模块（而非开源模块）可以在不使用 GSP 固件的情况下运行：将 &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; 添加到 /etc/modprobe.d/nvidia-gsp.conf，运行 &apos;sudo update-initramfs -u&apos;（Debian、Ubuntu）或 &apos;sudo dracut -f&apos;（Fedora），然后重启；之后 &apos;nvidia-smi -q | grep -i &quot;GSP Firmware&quot;&apos; 会显示 N/A。</translation>
    </message>
    <message>
        <source>The installed NVIDIA driver ({driver}) no longer supports the {gpu}: NVIDIA supports it only in its {legacy} legacy driver branch, so the driver ignores the GPU, and nvidia-smi and CUDA find none.</source>
        <translation>已安装的 NVIDIA 驱动（{driver}）不再支持 {gpu}：NVIDIA 只在其 {legacy} 旧版驱动分支中支持它，因此驱动会忽略该 GPU，nvidia-smi 和 CUDA 都找不到 GPU。</translation>
    </message>
    <message>
        <source>Install the {legacy} driver for this system from https://www.nvidia.com/object/unix.html (or the distribution&apos;s package of that branch), with its proprietary kernel module, not an &apos;-open&apos; one (the open modules need a Turing or newer GPU), and keep updates from moving past that branch. Then restart; &apos;nvidia-smi&apos; must list the GPU.</source>
        <translation>从 https://www.nvidia.com/object/unix.html 为此系统安装 {legacy} 驱动（或发行版中该分支的软件包），使用其专有内核模块，而不是 &apos;-open&apos; 模块（开源模块需要 Turing 或更新的 GPU），并防止更新越过该分支。然后重启；&apos;nvidia-smi&apos; 必须列出该 GPU。</translation>
    </message>
    <message>
        <source>Install the {branch} branch of the driver with its proprietary kernel module, not an &apos;-open&apos; one (the open modules need a Turing or newer GPU), and keep updates from moving past it: Ubuntu: &apos;sudo apt install nvidia-driver-{branch}&apos;, then &apos;sudo apt-mark hold nvidia-driver-{branch}&apos;; Arch: the nvidia-{branch}xx-dkms package; NixOS: hardware.nvidia.package = config.boot.kernelPackages.nvidiaPackages.legacy_{branch}; elsewhere NVIDIA&apos;s {legacy} driver from https://www.nvidia.com/object/unix.html. Then restart; &apos;nvidia-smi&apos; must list the GPU.</source>
        <translation>安装驱动的 {branch} 分支，使用其专有内核模块，而不是 &apos;-open&apos; 模块（开源模块需要 Turing 或更新的 GPU），并防止更新越过该分支：Ubuntu：&apos;sudo apt install nvidia-driver-{branch}&apos;，然后 &apos;sudo apt-mark hold nvidia-driver-{branch}&apos;；Arch：nvidia-{branch}xx-dkms 软件包；NixOS：hardware.nvidia.package = config.boot.kernelPackages.nvidiaPackages.legacy_{branch}；其他系统：从 https://www.nvidia.com/object/unix.html 获取 NVIDIA 的 {legacy} 驱动。然后重启；&apos;nvidia-smi&apos; 必须列出该 GPU。</translation>
    </message>
    <message>
        <source>The program has no GPU code for this AMD GPU: its build does not include the GPU&apos;s architecture (gfx target).</source>
        <translation>该程序没有适用于此 AMD GPU 的 GPU 代码：其构建中不包含该 GPU 的架构（gfx 目标）。</translation>
    </message>
    <message>
        <source>ROCm programs carry compiled code for a list of gfx targets; on a GPU outside that list they fail with &apos;invalid device function&apos; or &apos;no kernel image is available&apos;. Find the GPU&apos;s target (&apos;rocminfo&apos; lists it as &apos;Name: gfx...&apos;), then install a build that includes it: for PyTorch, the ROCm wheels of a release whose ROCm supports the GPU (AMD&apos;s compatibility matrix lists them); for an extension or a program built from source, rebuild it for that target (PYTORCH_ROCM_ARCH, or --offload-arch=gfx...). On Linux, for a GPU of the same family as a supported target, HSA_OVERRIDE_GFX_VERSION makes ROCm load that target&apos;s code instead (Ollama&apos;s GPU guide documents HSA_OVERRIDE_GFX_VERSION=10.3.0 for a gfx1034 GPU); AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results.</source>
        <translation>ROCm 程序包含针对一组 gfx 目标编译的代码；在列表之外的 GPU 上，它们会因 &apos;invalid device function&apos; 或 &apos;no kernel image is available&apos; 而失败。请查出 GPU 的目标（&apos;rocminfo&apos; 会将其列为 &apos;Name: gfx...&apos;），然后安装包含该目标的构建版本：对于 PyTorch，请安装其 ROCm 支持该 GPU 的版本的 ROCm wheel（AMD 的兼容性矩阵列出了这些版本）；对于扩展或从源代码构建的程序，请针对该目标重新构建（PYTORCH_ROCM_ARCH，或 --offload-arch=gfx...）。在 Linux 上，对于与某个受支持目标属于同一系列的 GPU，HSA_OVERRIDE_GFX_VERSION 可让 ROCm 改为加载该目标的代码（Ollama 的 GPU 指南记载了对 gfx1034 GPU 使用 HSA_OVERRIDE_GFX_VERSION=10.3.0）；AMD 不支持这种做法，它在 Windows 上无效，且错误的值会导致崩溃或计算结果错误。</translation>
    </message>
    <message>
        <source>The program has no GPU code for this AMD GPU ({gfx}): its build does not include that architecture.</source>
        <translation>该程序没有适用于此 AMD GPU（{gfx}）的 GPU 代码：其构建中不包含该架构。</translation>
    </message>
    <message>
        <source>ROCm programs carry compiled code for a list of gfx targets, and {gfx} is not in this one&apos;s. Install a build that includes {gfx}: for PyTorch, the ROCm wheels of a release whose ROCm supports the GPU (AMD&apos;s compatibility matrix lists them); for an extension or a program built from source, rebuild it with --offload-arch={gfx} (PYTORCH_ROCM_ARCH={gfx} for PyTorch extensions). On Linux, for a GPU of the same family as a supported target, HSA_OVERRIDE_GFX_VERSION makes ROCm load that target&apos;s code instead (Ollama&apos;s GPU guide documents HSA_OVERRIDE_GFX_VERSION=10.3.0 for a gfx1034 GPU); AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results.</source>
        <translation>ROCm 程序包含针对一组 gfx 目标编译的代码，而 {gfx} 不在此程序的列表中。请安装包含 {gfx} 的构建版本：对于 PyTorch，请安装其 ROCm 支持该 GPU 的版本的 ROCm wheel（AMD 的兼容性矩阵列出了这些版本）；对于扩展或从源代码构建的程序，请使用 --offload-arch={gfx} 重新构建（PyTorch 扩展使用 PYTORCH_ROCM_ARCH={gfx}）。在 Linux 上，对于与某个受支持目标属于同一系列的 GPU，HSA_OVERRIDE_GFX_VERSION 可让 ROCm 改为加载该目标的代码（Ollama 的 GPU 指南记载了对 gfx1034 GPU 使用 HSA_OVERRIDE_GFX_VERSION=10.3.0）；AMD 不支持这种做法，它在 Windows 上无效，且错误的值会导致崩溃或计算结果错误。</translation>
    </message>
    <message>
        <source>rocBLAS has no kernels for this AMD GPU ({gfx}): it found no kernel library for it ({library}).</source>
        <translation>rocBLAS 没有适用于此 AMD GPU（{gfx}）的内核：未找到适用于它的内核库（{library}）。</translation>
    </message>
    <message>
        <source>The installed rocBLAS (from ROCm, the HIP SDK on Windows, or a program&apos;s own copy) was not built for {gfx}. Install a ROCm or HIP SDK release that supports {gfx} (AMD&apos;s compatibility matrix lists the GPUs of each release), or use a program build that brings a rocBLAS for it. On Linux, for a GPU of the same family as a supported target, HSA_OVERRIDE_GFX_VERSION makes ROCm use that target&apos;s kernels (Ollama&apos;s GPU guide documents it); AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results.</source>
        <translation>已安装的 rocBLAS（来自 ROCm、Windows 上的 HIP SDK，或程序自带的副本）不是为 {gfx} 构建的。请安装支持 {gfx} 的 ROCm 或 HIP SDK 版本（AMD 的兼容性矩阵列出了每个版本支持的 GPU），或使用自带适用于它的 rocBLAS 的程序构建版本。在 Linux 上，对于与某个受支持目标属于同一系列的 GPU，HSA_OVERRIDE_GFX_VERSION 可让 ROCm 改用该目标的内核（Ollama 的 GPU 指南有相关说明）；AMD 不支持这种做法，它在 Windows 上无效，且错误的值会导致崩溃或计算结果错误。</translation>
    </message>
    <message>
        <source>Ollama&apos;s ROCm libraries do not support this AMD GPU ({gfx}), so Ollama runs on the CPU.</source>
        <translation>Ollama 的 ROCm 库不支持此 AMD GPU（{gfx}），因此 Ollama 在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Ollama&apos;s GPU guide lists the gfx targets its ROCm build supports. On Linux, for a GPU of the same family as one of them, set HSA_OVERRIDE_GFX_VERSION in the Ollama server&apos;s environment (the guide&apos;s example: HSA_OVERRIDE_GFX_VERSION=10.3.0 for a gfx1034 GPU, to use gfx1030&apos;s code; HSA_OVERRIDE_GFX_VERSION_0, _1, ... per GPU) and restart the server. AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results; otherwise a newer Ollama release may support {gfx}.</source>
        <translation>Ollama 的 GPU 指南列出了其 ROCm 构建版本支持的 gfx 目标。在 Linux 上，对于与其中某个目标属于同一系列的 GPU，请在 Ollama 服务器的环境中设置 HSA_OVERRIDE_GFX_VERSION（指南中的示例：对 gfx1034 GPU 设置 HSA_OVERRIDE_GFX_VERSION=10.3.0，以使用 gfx1030 的代码；多个 GPU 时分别使用 HSA_OVERRIDE_GFX_VERSION_0、_1、...），然后重启服务器。AMD 不支持这种做法，它在 Windows 上无效，且错误的值会导致崩溃或计算结果错误；否则，更新版本的 Ollama 可能会支持 {gfx}。</translation>
    </message>
    <message>
        <source>The ROCm runtime found no AMD GPU it can use.</source>
        <translation>ROCm 运行时未找到可用的 AMD GPU。</translation>
    </message>
    <message>
        <source>Check that &apos;rocminfo&apos; lists the GPU as an agent with a gfx name: if not, the amdgpu kernel driver is not loaded or the GPU is not one the installed ROCm release supports (AMD&apos;s compatibility matrix). Check that this user can open /dev/kfd and /dev/dri (members of the render and video groups: &apos;sudo usermod -a -G render,video $LOGNAME&apos;, then log in again), that HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES does not hide it, and, in a container, that it was started with --device=/dev/kfd --device=/dev/dri.</source>
        <translation>请检查 &apos;rocminfo&apos; 是否将该 GPU 列为带有 gfx 名称的代理（agent）：如果没有，说明 amdgpu 内核驱动程序未加载，或该 GPU 不受已安装的 ROCm 版本支持（见 AMD 的兼容性矩阵）。请检查当前用户能否打开 /dev/kfd 和 /dev/dri（需为 render 和 video 组成员：&apos;sudo usermod -a -G render,video $LOGNAME&apos;，然后重新登录），HIP_VISIBLE_DEVICES 或 ROCR_VISIBLE_DEVICES 是否隐藏了它；如果在容器中，还要检查容器是否以 --device=/dev/kfd --device=/dev/dri 启动。</translation>
    </message>
    <message>
        <source>The ROCm runtime could not start: it failed to open the GPU through the kernel driver (/dev/kfd).</source>
        <translation>ROCm 运行时无法启动：无法通过内核驱动程序（/dev/kfd）打开 GPU。</translation>
    </message>
    <message>
        <source>Usual causes: this user may not open /dev/kfd (add it to the render and video groups: &apos;sudo usermod -a -G render,video $LOGNAME&apos;, then log in again; if it works as root, this is it), the amdgpu kernel driver does not serve this GPU for compute (&apos;sudo dmesg | grep kfd&apos; then says it is not supported: an older GPU that ROCm does not support), or a container was started without --device=/dev/kfd --device=/dev/dri.</source>
        <translation>常见原因：当前用户无权打开 /dev/kfd（请将其加入 render 和 video 组：&apos;sudo usermod -a -G render,video $LOGNAME&apos;，然后重新登录；如果以 root 身份运行正常，就是这个原因）；amdgpu 内核驱动程序没有为此 GPU 提供计算支持（此时 &apos;sudo dmesg | grep kfd&apos; 会显示不受支持：ROCm 不支持的旧款 GPU）；或者容器启动时没有使用 --device=/dev/kfd --device=/dev/dri。</translation>
    </message>
    <message>
        <source>The HIP runtime found no AMD GPU it can use.</source>
        <translation>HIP 运行时未找到可用的 AMD GPU。</translation>
    </message>
    <message>
        <source>On Windows, HIP reaches the GPU through the AMD Software (Adrenalin) graphics driver: install its current version and restart, and check that the GPU is on the list of GPUs the installed HIP SDK release supports (AMD&apos;s &apos;System requirements (Windows)&apos;); a GPU outside it is not detected.</source>
        <translation>在 Windows 上，HIP 通过 AMD Software（Adrenalin）显卡驱动程序访问 GPU：请安装其最新版本并重启，并检查该 GPU 是否在已安装 HIP SDK 版本支持的 GPU 列表中（AMD 的 &apos;System requirements (Windows)&apos;）；不在列表中的 GPU 不会被检测到。</translation>
    </message>
    <message>
        <source>This user cannot open the GPU&apos;s device file /dev/kfd (&apos;{reason}&apos;), so ROCm sees no GPU.</source>
        <translation>当前用户无法打开 GPU 的设备文件 /dev/kfd（&apos;{reason}&apos;），因此 ROCm 看不到任何 GPU。</translation>
    </message>
    <message>
        <source>ROCm needs read and write access to /dev/kfd and /dev/dri/renderD*, which belong to the render group (on older systems the video group). Add the user to both (&apos;sudo usermod -a -G render,video $LOGNAME&apos;), then log out and in again. In a container, pass the devices and a group that owns them: &apos;docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render ...&apos; (&apos;ls -l /dev/kfd&apos; shows the group).</source>
        <translation>ROCm 需要对 /dev/kfd 和 /dev/dri/renderD* 的读写权限，这些设备属于 render 组（在较旧的系统上为 video 组）。请将该用户加入这两个组（&apos;sudo usermod -a -G render,video $LOGNAME&apos;），然后注销并重新登录。如果在容器中，请传入这些设备以及拥有它们的组：&apos;docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render ...&apos;（&apos;ls -l /dev/kfd&apos; 会显示所属组）。</translation>
    </message>
    <message>
        <source>{library}, part of AMD&apos;s ROCm ({component}), could not be loaded: ROCm is not installed, or not on the library path.</source>
        <translation>无法加载 {library}（AMD ROCm 的一部分，{component}）：ROCm 未安装，或不在库搜索路径中。</translation>
    </message>
    <message>
        <source>Install ROCm as AMD&apos;s installation guide says (amdgpu-install, or the distribution&apos;s ROCm packages), the release the program was built for, and make its library folder (/opt/rocm/lib) known to the loader. PyTorch&apos;s ROCm wheels bring their own ROCm libraries; programs such as llama.cpp&apos;s HIP build or ONNX Runtime&apos;s ROCm build use the system&apos;s.</source>
        <translation>请按照 AMD 安装指南安装 ROCm（amdgpu-install，或发行版的 ROCm 软件包），版本应与构建该程序时所用的版本一致，并让加载器能找到其库文件夹（/opt/rocm/lib）。PyTorch 的 ROCm wheel 自带 ROCm 库；llama.cpp 的 HIP 构建版本或 ONNX Runtime 的 ROCm 构建版本等程序则使用系统中的 ROCm 库。</translation>
    </message>
    <message>
        <source>{library}, the HIP runtime of ROCm {rocm}, could not be loaded: ROCm {rocm} is not installed, or not on the library path.</source>
        <translation>无法加载 {library}（ROCm {rocm} 的 HIP 运行时）：ROCm {rocm} 未安装，或不在库搜索路径中。</translation>
    </message>
    <message>
        <source>The program was built against ROCm {rocm} (the number after .so is HIP&apos;s major version, which is ROCm&apos;s). Install ROCm {rocm}.x as AMD&apos;s installation guide says (amdgpu-install, or the distribution&apos;s ROCm packages) and make its library folder (/opt/rocm/lib) known to the loader, or install a build of the program for the ROCm release you have. PyTorch&apos;s ROCm wheels bring their own HIP runtime.</source>
        <translation>该程序是针对 ROCm {rocm} 构建的（.so 后面的数字是 HIP 的主版本号，也就是 ROCm 的主版本号）。请按照 AMD 安装指南安装 ROCm {rocm}.x（amdgpu-install，或发行版的 ROCm 软件包），并让加载器能找到其库文件夹（/opt/rocm/lib），或者安装针对你现有 ROCm 版本构建的程序版本。PyTorch 的 ROCm wheel 自带 HIP 运行时。</translation>
    </message>
    <message>
        <source>PyTorch found no Intel GPU (XPU) it can use.</source>
        <translation>PyTorch 未找到可用的 Intel GPU（XPU）。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s XPU build reaches the GPU through Intel&apos;s graphics driver (Level Zero). Install Intel&apos;s current graphics driver (Windows: the Arc and Iris Xe graphics driver; Linux: the client GPU packages of Intel&apos;s guide &apos;PyTorch Installation Prerequisites for Intel GPUs&apos;), at least the version the PyTorch or IPEX XPU release asks for: an older driver does not show the GPU. Check that the GPU is one PyTorch&apos;s XPU builds support (Intel Arc A- and B-series, Core Ultra graphics, Data Center GPU Max), that this user can open /dev/dri/renderD* (the render group), and that &apos;sycl-ls&apos; lists it as a level_zero:gpu device.</source>
        <translation>PyTorch 的 XPU 构建版本通过 Intel 显卡驱动程序（Level Zero）访问 GPU。请安装 Intel 最新的显卡驱动程序（Windows：Arc 和 Iris Xe 显卡驱动程序；Linux：Intel 指南 &apos;PyTorch Installation Prerequisites for Intel GPUs&apos; 中的客户端 GPU 软件包），版本至少为 PyTorch 或 IPEX XPU 版本所要求的版本：较旧的驱动程序不会显示该 GPU。请检查该 GPU 是否受 PyTorch XPU 构建版本支持（Intel Arc A 和 B 系列、Core Ultra 显卡、Data Center GPU Max），当前用户能否打开 /dev/dri/renderD*（render 组），以及 &apos;sycl-ls&apos; 是否将其列为 level_zero:gpu 设备。</translation>
    </message>
    <message>
        <source>{library}, part of Intel&apos;s GPU software ({component}), could not be loaded.</source>
        <translation>无法加载 {library}（Intel GPU 软件的一部分，{component}）。</translation>
    </message>
    <message>
        <source>Intel GPU programs need Intel&apos;s graphics driver with its Level Zero loader (from the driver&apos;s packages, not pip) and the oneAPI runtime their release was built for. Install both as the program&apos;s installation guide says (for PyTorch: &apos;PyTorch Installation Prerequisites for Intel GPUs&apos;); then &apos;sycl-ls&apos; should list the GPU as a level_zero:gpu device.</source>
        <translation>Intel GPU 程序需要带有 Level Zero 加载器的 Intel 显卡驱动程序（来自驱动程序的软件包，而不是 pip），以及构建该程序版本时所用的 oneAPI 运行时。请按照程序的安装指南安装这两者（PyTorch 请参阅 &apos;PyTorch Installation Prerequisites for Intel GPUs&apos;）；之后，&apos;sycl-ls&apos; 应会将该 GPU 列为 level_zero:gpu 设备。</translation>
    </message>
    <message>
        <source>{library}, the Level Zero loader of Intel&apos;s graphics driver, could not be loaded.</source>
        <translation>无法加载 {library}（Intel 显卡驱动程序的 Level Zero 加载器）。</translation>
    </message>
    <message>
        <source>Intel GPU programs (PyTorch&apos;s XPU build, IPEX, llama.cpp&apos;s SYCL build) reach the GPU through Level Zero, which comes with Intel&apos;s graphics driver packages, not with pip. On Linux, install the Level Zero loader and GPU driver as Intel&apos;s client GPU guide says (libze1 and libze-intel-gpu1; level-zero and intel-level-zero-gpu on older releases); under WSL 2, follow Intel&apos;s WSL instructions. Then &apos;sycl-ls&apos; should list the GPU as a level_zero:gpu device.</source>
        <translation>Intel GPU 程序（PyTorch 的 XPU 构建版本、IPEX、llama.cpp 的 SYCL 构建版本）通过 Level Zero 访问 GPU，它随 Intel 显卡驱动程序的软件包提供，而不是随 pip 提供。在 Linux 上，请按照 Intel 客户端 GPU 指南安装 Level Zero 加载器和 GPU 驱动程序（libze1 和 libze-intel-gpu1；较旧的版本上为 level-zero 和 intel-level-zero-gpu）；在 WSL 2 下，请按照 Intel 的 WSL 说明操作。之后，&apos;sycl-ls&apos; 应会将该 GPU 列为 level_zero:gpu 设备。</translation>
    </message>
    <message>
        <source>{library}, part of Intel&apos;s oneAPI runtime ({component}), could not be loaded.</source>
        <translation>无法加载 {library}（Intel oneAPI 运行时的一部分，{component}）。</translation>
    </message>
    <message>
        <source>The Intel Extension for PyTorch (IPEX) XPU build loads the oneAPI libraries (oneMKL, the SYCL runtime) of the oneAPI release it was built for. Install that oneAPI release and set its environment before starting Python (&apos;source /opt/intel/oneapi/setvars.sh&apos;), or install the IPEX and PyTorch XPU releases whose wheels bring these libraries from pip (PyTorch&apos;s XPU wheels depend on intel-sycl-rt and onemkl-sycl-*), as their installation guides say.</source>
        <translation>Intel Extension for PyTorch（IPEX）的 XPU 构建版本会加载构建它时所用 oneAPI 版本的 oneAPI 库（oneMKL、SYCL 运行时）。请安装该 oneAPI 版本，并在启动 Python 前设置其环境（&apos;source /opt/intel/oneapi/setvars.sh&apos;），或者按照安装指南，通过 pip 安装其 wheel 自带这些库的 IPEX 和 PyTorch XPU 版本（PyTorch 的 XPU wheel 依赖 intel-sycl-rt 和 onemkl-sycl-*）。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend has no implementation of {op} for the Apple GPU.</source>
        <translation>PyTorch 的 MPS 后端没有为 Apple GPU 实现 {op}。</translation>
    </message>
    <message>
        <source>Newer PyTorch releases implement more operators for MPS: install the latest release (or a nightly build) first. Otherwise set PYTORCH_ENABLE_MPS_FALLBACK=1 in the environment before the program starts (not inside it): the operators MPS lacks then run on the CPU while the rest stays on the GPU. That costs speed: each fallback runs at CPU speed and copies its data between GPU and CPU memory (PyTorch&apos;s &apos;MPS Environment Variables&apos;).</source>
        <translation>较新的 PyTorch 版本为 MPS 实现了更多算子：请先安装最新版本（或 nightly 构建版本）。否则，请在程序启动前（而不是在程序内部）在环境中设置 PYTORCH_ENABLE_MPS_FALLBACK=1：这样 MPS 缺少的算子会在 CPU 上运行，其余部分仍在 GPU 上运行。这会降低速度：每个回退的算子都以 CPU 速度运行，并在 GPU 和 CPU 内存之间复制数据（见 PyTorch 的 &apos;MPS Environment Variables&apos;）。</translation>
    </message>
    <message>
        <source>The Apple GPU ran out of memory for PyTorch&apos;s MPS backend.</source>
        <translation>PyTorch 的 MPS 后端在 Apple GPU 上内存不足。</translation>
    </message>
    <message>
        <source>Use a smaller batch size, image size or model (or a half-precision one), close other programs that use the Mac&apos;s unified memory, and free PyTorch&apos;s cached GPU memory with torch.mps.empty_cache(). The limit is PyTorch&apos;s high watermark (PYTORCH_MPS_HIGH_WATERMARK_RATIO, 1.7 times the GPU&apos;s recommended working set by default); PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes it, as the message says, but then macOS itself can run out of memory and the system may slow to a crawl or crash (PyTorch&apos;s &apos;MPS Environment Variables&apos;).</source>
        <translation>请使用更小的批大小、图像尺寸或模型（或半精度模型），关闭其他使用 Mac 统一内存的程序，并用 torch.mps.empty_cache() 释放 PyTorch 缓存的 GPU 内存。该上限是 PyTorch 的高水位线（PYTORCH_MPS_HIGH_WATERMARK_RATIO，默认为 GPU 推荐工作集的 1.7 倍）；如消息所述，PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 可取消该上限，但这样 macOS 本身可能会内存不足，系统可能变得极慢或崩溃（见 PyTorch 的 &apos;MPS Environment Variables&apos;）。</translation>
    </message>
    <message>
        <source>The Apple GPU ran out of memory for PyTorch&apos;s MPS backend (MPS allocated {allocated}, other allocations {other}, limit {max_allowed}).</source>
        <translation>PyTorch 的 MPS 后端在 Apple GPU 上内存不足（MPS 已分配 {allocated}，其他分配 {other}，上限 {max_allowed}）。</translation>
    </message>
    <message>
        <source>Use a smaller batch size, image size or model (or a half-precision one), close other programs that use the Mac&apos;s unified memory, and free PyTorch&apos;s cached GPU memory with torch.mps.empty_cache(). The limit {max_allowed} is PyTorch&apos;s high watermark (PYTORCH_MPS_HIGH_WATERMARK_RATIO, 1.7 times the GPU&apos;s recommended working set by default); PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes it, as the message says, but then macOS itself can run out of memory and the system may slow to a crawl or crash (PyTorch&apos;s &apos;MPS Environment Variables&apos;).</source>
        <translation>请使用更小的批大小、图像尺寸或模型（或半精度模型），关闭其他使用 Mac 统一内存的程序，并用 torch.mps.empty_cache() 释放 PyTorch 缓存的 GPU 内存。上限 {max_allowed} 是 PyTorch 的高水位线（PYTORCH_MPS_HIGH_WATERMARK_RATIO，默认为 GPU 推荐工作集的 1.7 倍）；如消息所述，PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 可取消该上限，但这样 macOS 本身可能会内存不足，系统可能变得极慢或崩溃（见 PyTorch 的 &apos;MPS Environment Variables&apos;）。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend cannot hold {dtype} tensors: the Apple GPU has no 64-bit floating point.</source>
        <translation>PyTorch 的 MPS 后端无法存放 {dtype} 张量：Apple GPU 不支持 64 位浮点。</translation>
    </message>
    <message>
        <source>Convert data to float32 before moving it to &apos;mps&apos;: tensor.float() or .to(torch.float32), NumPy arrays with .astype(np.float32) (NumPy&apos;s default is float64, and torch.from_numpy keeps it), and remove torch.set_default_dtype(torch.float64) where code sets it. PYTORCH_ENABLE_MPS_FALLBACK does not help here. Where a computation needs float64, run that part on the CPU.</source>
        <translation>请在将数据移到 &apos;mps&apos; 之前将其转换为 float32：tensor.float() 或 .to(torch.float32)，NumPy 数组使用 .astype(np.float32)（NumPy 默认为 float64，而 torch.from_numpy 会保留该类型）；如果代码中设置了 torch.set_default_dtype(torch.float64)，请将其删除。PYTORCH_ENABLE_MPS_FALLBACK 对此无效。如果某个计算需要 float64，请在 CPU 上运行该部分。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend has no support for the {dtype} data type.</source>
        <translation>PyTorch 的 MPS 后端不支持 {dtype} 数据类型。</translation>
    </message>
    <message>
        <source>Convert the data or model to a type MPS supports (float32 or float16) before moving it to &apos;mps&apos;, or run that part on the CPU; for a model file in this type, use a float16 version of it.</source>
        <translation>请在将数据或模型移到 &apos;mps&apos; 之前，将其转换为 MPS 支持的类型（float32 或 float16），或在 CPU 上运行该部分；如果模型文件是这种类型，请使用它的 float16 版本。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend did not start: it says it needs macOS {minimum} or newer.</source>
        <translation>PyTorch 的 MPS 后端未能启动：它提示需要 macOS {minimum} 或更高版本。</translation>
    </message>
    <message>
        <source>The {component} reported {name} (error {number}): {meaning}</source>
        <translation>{component} 报告了 {name}（错误 {number}）：{meaning}</translation>
    </message>
    <message>
        <source>This is the CUDA stack&apos;s own error, reported by the program that failed. Check that the NVIDIA driver is current and that the program&apos;s CUDA build supports this GPU (&apos;gpuwizard detect&apos; shows the driver and the GPU), and search the error name together with the program&apos;s name for known causes.</source>
        <translation>这是 CUDA 软件栈自身的错误，由出错的程序报告。请检查 NVIDIA 驱动程序是否为最新版本，以及程序的 CUDA 构建是否支持这块 GPU（&apos;gpuwizard detect&apos; 会显示驱动程序和 GPU），并将错误名称与程序名称一起搜索，以查找已知原因。</translation>
    </message>
    <message>
        <source>This is the ROCm stack&apos;s own error, reported by the program that failed. Check that the installed ROCm release and the program&apos;s build support this GPU (&apos;rocminfo&apos; names its gfx target), that this user can open /dev/kfd and /dev/dri (the render and video groups), and search the error name together with the program&apos;s name for known causes.</source>
        <translation>这是 ROCm 软件栈自身的错误，由失败的程序报告。请检查已安装的 ROCm 版本和该程序的构建版本是否支持此 GPU（&apos;rocminfo&apos; 会显示其 gfx 目标），当前用户能否打开 /dev/kfd 和 /dev/dri（render 和 video 组），并将错误名称与程序名称一起搜索，以查找已知原因。</translation>
    </message>
    <message>
        <source>The AMD kernel driver (amdgpu) is older than the ROCm release the program was built with. Install the amdgpu driver of that ROCm release as AMD&apos;s ROCm installation guide says (or a build of the program for the older ROCm), then restart the computer.</source>
        <translation>AMD 内核驱动程序（amdgpu）早于构建该程序时所用的 ROCm 版本。请按照 AMD 的 ROCm 安装指南安装该 ROCm 版本的 amdgpu 驱动程序（或安装针对较旧 ROCm 构建的程序版本），然后重启计算机。</translation>
    </message>
    <message>
        <source>This is {component}&apos;s own status, reported by the program that failed. Check that the {component} version the program loads is the one it was built for, that the GPU has memory free, and that the NVIDIA driver is current (&apos;gpuwizard detect&apos; shows the driver and the GPU).</source>
        <translation>这是 {component} 自身的状态，由出错的程序报告。请检查程序加载的 {component} 版本是否与其构建时所用的版本一致、GPU 是否还有空闲显存，以及 NVIDIA 驱动程序是否为最新版本（&apos;gpuwizard detect&apos; 会显示驱动程序和 GPU）。</translation>
    </message>
    <message>
        <source>This is {component}&apos;s own status, part of AMD&apos;s ROCm, reported by the program that failed. Check that the ROCm libraries the program loads come from the ROCm release it was built for, that the GPU is one that release supports (&apos;rocminfo&apos; names its gfx target), that it has memory free (&apos;rocm-smi&apos; shows it), and that this user can open /dev/kfd and /dev/dri (the render and video groups).</source>
        <translation>这是 {component}（AMD ROCm 的一部分）自身的状态，由失败的程序报告。请检查程序加载的 ROCm 库是否来自构建它时所用的 ROCm 版本，该 GPU 是否受该版本支持（&apos;rocminfo&apos; 会显示其 gfx 目标），GPU 是否有空闲显存（&apos;rocm-smi&apos; 可查看），以及当前用户能否打开 /dev/kfd 和 /dev/dri（render 和 video 组）。</translation>
    </message>
    <message>
        <source>This is {component}&apos;s own status, part of Intel&apos;s GPU software (oneAPI), reported by the program that failed. Check that Intel&apos;s graphics driver is current (at least the one the PyTorch XPU or IPEX release asks for), that &apos;sycl-ls&apos; lists the GPU as a level_zero device, that the GPU has memory free, and that the oneAPI runtime the program loads is the one it was built for.</source>
        <translation>这是 {component}（Intel GPU 软件 oneAPI 的一部分）自身的状态，由失败的程序报告。请检查 Intel 显卡驱动程序是否为最新版本（至少为 PyTorch XPU 或 IPEX 版本所要求的版本），&apos;sycl-ls&apos; 是否将该 GPU 列为 level_zero 设备，GPU 是否有空闲显存，以及程序加载的 oneAPI 运行时是否为构建它时所用的版本。</translation>
    </message>
    <message>
        <source>This library comes with the NVIDIA driver, not with a Python package. Install or reinstall the NVIDIA driver; inside a container, start it with access to the GPU (docker run --gpus all, with the NVIDIA Container Toolkit) so that the driver&apos;s libraries are mounted into it.</source>
        <translation>这个库随 NVIDIA 驱动程序一起提供，而不是来自某个 Python 包。请安装或重新安装 NVIDIA 驱动程序；在容器中，请以可访问 GPU 的方式启动容器（docker run --gpus all，并安装 NVIDIA Container Toolkit），以便将驱动程序的库挂载进去。</translation>
    </message>
    <message>
        <source>This log comes from WSL 1 (&apos;{evidence}&apos;), which cannot use the GPU: CUDA works only in WSL 2 distributions.</source>
        <translation>此日志来自 WSL 1（&apos;{evidence}&apos;），WSL 1 无法使用 GPU：CUDA 仅在 WSL 2 发行版中可用。</translation>
    </message>
    <message>
        <source>Convert the distribution to WSL 2. In PowerShell or cmd on Windows, list the distributions and their versions with &apos;wsl -l -v&apos;, convert yours with &apos;wsl --set-version &lt;distro&gt; 2&apos;, and run &apos;wsl --set-default-version 2&apos; so that new ones are WSL 2 too. If the conversion fails with HCS_E_HYPERV_NOT_INSTALLED or 0x80370102, turn on virtualization first. Inside WSL 2 the Windows NVIDIA driver serves the GPU: do not install a Linux NVIDIA driver in the distribution, and remove one that is there.</source>
        <translation>请将该发行版转换为 WSL 2。在 Windows 的 PowerShell 或 cmd 中，用 &apos;wsl -l -v&apos; 列出各发行版及其版本，用 &apos;wsl --set-version &lt;distro&gt; 2&apos; 转换你的发行版，并运行 &apos;wsl --set-default-version 2&apos;，使新的发行版也为 WSL 2。如果转换失败并报错 HCS_E_HYPERV_NOT_INSTALLED 或 0x80370102，请先开启虚拟化。在 WSL 2 中，GPU 由 Windows 的 NVIDIA 驱动提供支持：不要在发行版中安装 Linux 版 NVIDIA 驱动，已安装的请卸载。</translation>
    </message>
    <message>
        <source>The WSL distribution &apos;{distro}&apos; runs as WSL 1 (&apos;{evidence}&apos;), which cannot use the GPU: CUDA works only in WSL 2 distributions.</source>
        <translation>WSL 发行版 &apos;{distro}&apos; 以 WSL 1 运行（&apos;{evidence}&apos;），WSL 1 无法使用 GPU：CUDA 仅在 WSL 2 发行版中可用。</translation>
    </message>
    <message>
        <source>Convert it to WSL 2: in PowerShell or cmd on Windows, run &apos;wsl --set-version {distro} 2&apos; (it can take minutes; back up large projects first), then &apos;wsl --set-default-version 2&apos; so that new distributions are WSL 2 too. &apos;wsl -l -v&apos; must then show VERSION 2. If the conversion fails with HCS_E_HYPERV_NOT_INSTALLED or 0x80370102, turn on virtualization first. Inside WSL 2 the Windows NVIDIA driver serves the GPU: do not install a Linux NVIDIA driver in the distribution.</source>
        <translation>请将其转换为 WSL 2：在 Windows 的 PowerShell 或 cmd 中运行 &apos;wsl --set-version {distro} 2&apos;（可能需要几分钟；请先备份大型项目），然后运行 &apos;wsl --set-default-version 2&apos;，使新的发行版也为 WSL 2。之后 &apos;wsl -l -v&apos; 应显示 VERSION 为 2。如果转换失败并报错 HCS_E_HYPERV_NOT_INSTALLED 或 0x80370102，请先开启虚拟化。在 WSL 2 中，GPU 由 Windows 的 NVIDIA 驱动提供支持：不要在发行版中安装 Linux 版 NVIDIA 驱动。</translation>
    </message>
    <message>
        <source>WSL 2 could not start its virtual machine (&apos;{evidence}&apos;): virtualization is off in the computer&apos;s firmware, or the Virtual Machine Platform feature of Windows is not enabled.</source>
        <translation>WSL 2 无法启动其虚拟机（&apos;{evidence}&apos;）：计算机固件中的虚拟化已关闭，或 Windows 的“虚拟机平台”功能未启用。</translation>
    </message>
    <message>
        <source>Turn on virtualization in the firmware (UEFI/BIOS) setup, usually among the CPU settings: &apos;Intel Virtualization Technology&apos; (VT-x) or, on AMD, &apos;SVM Mode&apos; (AMD-V). Then, in PowerShell or cmd run as administrator, enable the Virtual Machine Platform with &apos;wsl.exe --install --no-distribution&apos; (or &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;) and restart Windows. If both are on already, &apos;bcdedit /enum | findstr -i hypervisorlaunchtype&apos; (as administrator) must not say Off; if it does, run &apos;bcdedit /set hypervisorlaunchtype Auto&apos; and restart. For 0x80370114 (the Host Compute Service missing), also turn on &apos;Hyper-V&apos; with its &apos;Hyper-V Hypervisor&apos; and &apos;Hyper-V Services&apos; in &apos;Turn Windows features on or off&apos; where Windows has them, and restart. When Windows itself runs in a virtual machine, its host must allow nested virtualization. WSL 2 also needs a CPU with SLAT (Intel Core 1st generation or AMD Opteron and newer).</source>
        <translation>请在固件（UEFI/BIOS）设置中开启虚拟化，该选项通常位于 CPU 相关设置中：&apos;Intel Virtualization Technology&apos;（VT-x），AMD 平台上则为 &apos;SVM Mode&apos;（AMD-V）。然后在以管理员身份运行的 PowerShell 或 cmd 中，用 &apos;wsl.exe --install --no-distribution&apos;（或 &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;）启用虚拟机平台，并重启 Windows。如果两者都已开启，以管理员身份运行的 &apos;bcdedit /enum | findstr -i hypervisorlaunchtype&apos; 不应显示 Off；如果显示 Off，请运行 &apos;bcdedit /set hypervisorlaunchtype Auto&apos; 并重启。对于 0x80370114（缺少 Host Compute Service），如果你的 Windows 提供相关功能，还需在 &apos;启用或关闭 Windows 功能&apos; 中开启 &apos;Hyper-V&apos; 及其 &apos;Hyper-V 虚拟机监控程序&apos; 和 &apos;Hyper-V 服务&apos;，然后重启。如果 Windows 本身运行在虚拟机中，其宿主机必须允许嵌套虚拟化。WSL 2 还需要支持 SLAT 的 CPU（第一代 Intel Core 或 AMD Opteron 及更新的型号）。</translation>
    </message>
    <message>
        <source>The Windows Subsystem for Linux is not enabled on this Windows (&apos;{evidence}&apos;), so no distribution can start.</source>
        <translation>此 Windows 未启用适用于 Linux 的 Windows 子系统（&apos;{evidence}&apos;），因此无法启动任何发行版。</translation>
    </message>
    <message>
        <source>In PowerShell or cmd run as administrator, run &apos;wsl.exe --install --no-distribution&apos; (or &apos;dism.exe /online /enable-feature /featurename:Microsoft-Windows-Subsystem-Linux /all /norestart&apos; and, for WSL 2, &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;), restart Windows, then start the distribution again. The GPU needs WSL 2: check with &apos;wsl -l -v&apos; that the distribution&apos;s VERSION is 2.</source>
        <translation>在以管理员身份运行的 PowerShell 或 cmd 中，运行 &apos;wsl.exe --install --no-distribution&apos;（或 &apos;dism.exe /online /enable-feature /featurename:Microsoft-Windows-Subsystem-Linux /all /norestart&apos;，如需 WSL 2，再运行 &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;），重启 Windows，然后重新启动该发行版。使用 GPU 需要 WSL 2：请用 &apos;wsl -l -v&apos; 确认该发行版的 VERSION 为 2。</translation>
    </message>
    <message>
        <source>The WSL 2 distribution ran out of disk space (&apos;{evidence}&apos;): its files live in a virtual disk (ext4.vhdx) with a maximum size, on a Windows drive that must have room for it to grow.</source>
        <translation>WSL 2 发行版的磁盘空间已用完（&apos;{evidence}&apos;）：其文件存放在一个有最大容量的虚拟磁盘（ext4.vhdx）中，该虚拟磁盘所在的 Windows 驱动器必须留有空间供其增长。</translation>
    </message>
    <message>
        <source>In the distribution&apos;s shell, see what is full: &apos;df -h / /tmp&apos;. Free space there: &apos;pip cache purge&apos;, &apos;uv cache clean&apos;, &apos;conda clean --all&apos;, and environments or models you no longer need. If &apos;/&apos; is at 100% of its size, grow the virtual disk from Windows, in PowerShell or cmd: &apos;wsl --shutdown&apos;, then &apos;wsl --manage &lt;distro&gt; --resize 2TB&apos; (any size larger than the one &apos;df -h /&apos; shows; WSL 2.5 and newer; older WSL: the diskpart steps of Microsoft&apos;s &apos;How to manage WSL disk space&apos;). If instead the Windows drive that holds the distribution is full, free space on it or move the distribution to another drive: &apos;wsl --shutdown&apos;, then &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos;. Deleting files inside WSL does not give the space back to Windows by itself.</source>
        <translation>在发行版的 shell 中查看哪里已满：&apos;df -h / /tmp&apos;。在那里释放空间：&apos;pip cache purge&apos;、&apos;uv cache clean&apos;、&apos;conda clean --all&apos;，以及删除不再需要的环境或模型。如果 &apos;/&apos; 已用满其容量的 100%，请在 Windows 的 PowerShell 或 cmd 中扩大虚拟磁盘：先运行 &apos;wsl --shutdown&apos;，再运行 &apos;wsl --manage &lt;distro&gt; --resize 2TB&apos;（可使用任何大于 &apos;df -h /&apos; 所示容量的大小；需要 WSL 2.5 及更新版本；旧版 WSL 请参照 Microsoft 文档 &apos;如何管理 WSL 磁盘空间&apos; 中的 diskpart 步骤）。如果是存放该发行版的 Windows 驱动器已满，请在该驱动器上释放空间，或将发行版移动到另一个驱动器：先运行 &apos;wsl --shutdown&apos;，再运行 &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos;。在 WSL 中删除文件本身并不会把空间归还给 Windows。</translation>
    </message>
    <message>
        <source>The Windows drive ran out of space for WSL (&apos;{evidence}&apos;): the drive that holds the distribution&apos;s virtual disk (ext4.vhdx), or the file being written, is full.</source>
        <translation>Windows 驱动器上已没有可供 WSL 使用的空间（&apos;{evidence}&apos;）：存放该发行版虚拟磁盘（ext4.vhdx）的驱动器或正在写入的文件所在的驱动器已满。</translation>
    </message>
    <message>
        <source>Free space on that Windows drive (Settings &gt; System &gt; Storage), or move the distribution to a drive with room: in PowerShell or cmd, &apos;wsl --shutdown&apos;, then &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos; (&apos;wsl -l -v&apos; lists the names). For &apos;wsl --export&apos;, give a file on a drive with room. Deleting files inside WSL does not give the space back to Windows by itself; inside the distribution, &apos;df -h /&apos; shows how full its own disk is.</source>
        <translation>请释放该 Windows 驱动器上的空间（设置 &gt; 系统 &gt; 存储），或将发行版移动到有空间的驱动器：在 PowerShell 或 cmd 中，先运行 &apos;wsl --shutdown&apos;，再运行 &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos;（&apos;wsl -l -v&apos; 会列出名称）。使用 &apos;wsl --export&apos; 时，请指定位于有空间的驱动器上的文件。在 WSL 中删除文件本身并不会把空间归还给 Windows；在发行版中，&apos;df -h /&apos; 会显示其自身磁盘的占用情况。</translation>
    </message>
    <message>
        <source>A process was killed inside WSL 2 (&apos;{evidence}&apos;): most often Linux&apos;s out-of-memory killer, because the WSL 2 virtual machine gets only part of the computer&apos;s memory (by default half of it).</source>
        <translation>WSL 2 中有进程被终止（&apos;{evidence}&apos;）：最常见的原因是 Linux 的内存不足终止机制（OOM killer），因为 WSL 2 虚拟机只能获得计算机的一部分内存（默认为一半）。</translation>
    </message>
    <message>
        <source>This is the computer&apos;s memory (RAM), not the GPU&apos;s. Give the WSL 2 virtual machine more memory or swap: on Windows, open the file .wslconfig in your user folder (PowerShell: &apos;notepad $env:USERPROFILE\.wslconfig&apos;; cmd: &apos;notepad %UserProfile%\.wslconfig&apos;; or the WSL Settings app), put under a &apos;[wsl2]&apos; line for example &apos;memory=24GB&apos; and &apos;swap=16GB&apos; (leave Windows a few GB), save, run &apos;wsl --shutdown&apos; and open the distribution again; &apos;free -h&apos; inside it shows the new total. Or use less memory: a smaller batch size, fewer data-loader workers, a smaller or quantised model. Inside the distribution, &apos;sudo dmesg | grep -i -E &quot;out of memory|oom&quot;&apos; confirms an out-of-memory kill.</source>
        <translation>这里指的是计算机的内存（RAM），而不是 GPU 的显存。请为 WSL 2 虚拟机分配更多内存或交换空间（swap）：在 Windows 上打开用户文件夹中的 .wslconfig 文件（PowerShell：&apos;notepad $env:USERPROFILE\.wslconfig&apos;；cmd：&apos;notepad %UserProfile%\.wslconfig&apos;；或使用 WSL 设置应用），在 &apos;[wsl2]&apos; 一行下写入例如 &apos;memory=24GB&apos; 和 &apos;swap=16GB&apos;（给 Windows 留出几 GB），保存后运行 &apos;wsl --shutdown&apos;，再重新打开发行版；在发行版中运行 &apos;free -h&apos; 可看到新的总量。或者减少内存占用：使用更小的批大小（batch size）、更少的数据加载器工作进程（worker）、更小或量化后的模型。在发行版中，&apos;sudo dmesg | grep -i -E &quot;out of memory|oom&quot;&apos; 可确认进程是否因内存不足而被终止。</translation>
    </message>
    <message>
        <source>The NVIDIA driver is older than the CUDA release the program was built with. Update the NVIDIA driver (or install a build of the program for an older CUDA), then restart the program.</source>
        <translation>NVIDIA 驱动程序比构建该程序所用的 CUDA 版本更旧。请更新 NVIDIA 驱动程序（或安装面向较旧 CUDA 的程序构建），然后重新启动程序。</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit of the same major version as torch&apos;s CUDA (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; shows it) from https://developer.nvidia.com/cuda-toolkit-archive, then on Linux &apos;export CUDA_HOME=/usr/local/cuda&apos; and run the build again; in a conda environment &apos;conda install -c nvidia cuda-toolkit&apos; and &apos;export CUDA_HOME=$CONDA_PREFIX&apos;; on Windows the installer sets CUDA_PATH, which the build reads: open a new terminal before building again. In a container, use an image whose name contains &apos;devel&apos;. Many packages (flash-attn, DeepSpeed) also publish prebuilt wheels, which need no compiler.</source>
        <translation>从 https://developer.nvidia.com/cuda-toolkit-archive 安装与 torch 的 CUDA 主版本相同的 CUDA Toolkit（&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; 可显示该版本），然后在 Linux 上执行 &apos;export CUDA_HOME=/usr/local/cuda&apos; 并重新构建；在 conda 环境中执行 &apos;conda install -c nvidia cuda-toolkit&apos; 和 &apos;export CUDA_HOME=$CONDA_PREFIX&apos;；在 Windows 上，安装程序会设置构建所读取的 CUDA_PATH：重新构建前请打开一个新的终端。在容器中，请使用名称包含 &apos;devel&apos; 的镜像。许多软件包（flash-attn、DeepSpeed）也发布了预编译的 wheel，无需编译器。</translation>
    </message>
    <message>
        <source>Install CUDA Toolkit {cuda} (https://developer.nvidia.com/cuda-toolkit-archive, or in a conda environment &apos;conda install -c nvidia cuda-toolkit={cuda}&apos; with &apos;export CUDA_HOME=$CONDA_PREFIX&apos;), then on Linux &apos;export CUDA_HOME=/usr/local/cuda-{cuda}&apos; and run the build again (on Windows the installer sets CUDA_PATH, which the build reads: open a new terminal before building again). In a container, use an image whose name contains &apos;devel&apos;. Many packages (flash-attn, DeepSpeed) also publish prebuilt wheels, which need no compiler.</source>
        <translation>安装 CUDA Toolkit {cuda}（https://developer.nvidia.com/cuda-toolkit-archive，或在 conda 环境中执行 &apos;conda install -c nvidia cuda-toolkit={cuda}&apos; 并设置 &apos;export CUDA_HOME=$CONDA_PREFIX&apos;），然后在 Linux 上执行 &apos;export CUDA_HOME=/usr/local/cuda-{cuda}&apos; 并重新构建（在 Windows 上，安装程序会设置构建所读取的 CUDA_PATH：重新构建前请打开一个新的终端）。在容器中，请使用名称包含 &apos;devel&apos; 的镜像。许多软件包（flash-attn、DeepSpeed）也发布了预编译的 wheel，无需编译器。</translation>
    </message>
    <message>
        <source>On Windows use triton-windows, whose wheels bring their own C compiler (TinyCC): &apos;pip uninstall triton&apos;, then &apos;pip install -U &quot;triton-windows&lt;3.7&quot;&apos;, choosing the line that matches torch (torch 2.7: &lt;3.4, 2.8: &lt;3.5, 2.9: &lt;3.6, 2.10: &lt;3.7). For ComfyUI&apos;s embedded Python, run python_embeded\python.exe -m pip instead of pip. torch.compile for the CPU also needs MSVC: install the Visual Studio Build Tools (https://aka.ms/vs/17/release/vs_BuildTools.exe, &apos;Desktop development with C++&apos;). Triton for other GPUs (Intel&apos;s XPU build) brings no compiler: it needs one on PATH or named in CC.</source>
        <translation>在 Windows 上请使用 triton-windows，其 wheel 自带 C 编译器（TinyCC）：先执行 &apos;pip uninstall triton&apos;，再执行 &apos;pip install -U &quot;triton-windows&lt;3.7&quot;&apos;，并选择与 torch 对应的版本线（torch 2.7：&lt;3.4，2.8：&lt;3.5，2.9：&lt;3.6，2.10：&lt;3.7）。对于 ComfyUI 内置的 Python，请运行 python_embeded\python.exe -m pip 而不是 pip。用于 CPU 的 torch.compile 还需要 MSVC：请安装 Visual Studio Build Tools（https://aka.ms/vs/17/release/vs_BuildTools.exe，“使用 C++ 的桌面开发”）。用于其他 GPU 的 Triton（Intel 的 XPU 版本）不带编译器：需要在 PATH 中有一个编译器，或通过 CC 指定。</translation>
    </message>
    <message>
        <source>On Windows use triton-windows, whose wheels bring their own C compiler (TinyCC); for torch {torch}: &apos;pip uninstall triton&apos;, then &apos;pip install -U &quot;triton-windows&lt;{below}&quot;&apos;. For ComfyUI&apos;s embedded Python, run python_embeded\python.exe -m pip instead of pip. torch.compile for the CPU also needs MSVC: install the Visual Studio Build Tools (https://aka.ms/vs/17/release/vs_BuildTools.exe, &apos;Desktop development with C++&apos;). Triton for other GPUs (Intel&apos;s XPU build) brings no compiler: it needs one on PATH or named in CC.</source>
        <translation>在 Windows 上请使用 triton-windows，其 wheel 自带 C 编译器（TinyCC）；对于 torch {torch}：先执行 &apos;pip uninstall triton&apos;，再执行 &apos;pip install -U &quot;triton-windows&lt;{below}&quot;&apos;。对于 ComfyUI 内置的 Python，请运行 python_embeded\python.exe -m pip 而不是 pip。用于 CPU 的 torch.compile 还需要 MSVC：请安装 Visual Studio Build Tools（https://aka.ms/vs/17/release/vs_BuildTools.exe，“使用 C++ 的桌面开发”）。用于其他 GPU 的 Triton（Intel 的 XPU 版本）不带编译器：需要在 PATH 中有一个编译器，或通过 CC 指定。</translation>
    </message>
    <message>
        <source>Set USE_LIBUV=0 in the environment before the program starts (PowerShell: $env:USE_LIBUV=&quot;0&quot;; cmd: set USE_LIBUV=0; in Python before torch.distributed starts: os.environ[&quot;USE_LIBUV&quot;] = &quot;0&quot;), or add ?use_libuv=0 to an init_method URL (init_method=&quot;env://?use_libuv=0&quot;). Use the gloo backend on Windows, or run the program in WSL 2. If you meant to train on one GPU, run without torch.distributed: in &apos;accelerate config&apos; choose &apos;No distributed training&apos;, or start with &apos;accelerate launch --num_processes 1&apos;.</source>
        <translation>请在程序启动前在环境中设置 USE_LIBUV=0（PowerShell：$env:USE_LIBUV=&quot;0&quot;；cmd：set USE_LIBUV=0；在 Python 中，于 torch.distributed 启动前：os.environ[&quot;USE_LIBUV&quot;] = &quot;0&quot;），或者在 init_method URL 中添加 ?use_libuv=0（init_method=&quot;env://?use_libuv=0&quot;）。在 Windows 上请使用 gloo 后端，或者在 WSL 2 中运行程序。如果您原本打算在单个 GPU 上训练，请不使用 torch.distributed 运行：在 &apos;accelerate config&apos; 中选择 &apos;No distributed training&apos;，或者用 &apos;accelerate launch --num_processes 1&apos; 启动。</translation>
    </message>
    <message>
        <source>Check the macOS version (&apos;sw_vers&apos;). If it is older, update macOS, or install an older PyTorch release that supports it (newer releases need newer macOS, whatever the message says: PyTorch 2.5 to 2.9 need macOS 13, PyTorch 2.10 and newer macOS 14); meanwhile the CPU works. If macOS is newer than that, compare it with the release&apos;s real minimum first; beyond it, MPS is missing for another reason: a Mac without a Metal GPU, a virtual machine, or an x86-64 Python running under Rosetta on Apple silicon (&apos;python3 -c &quot;import platform; print(platform.machine())&quot;&apos; should say arm64).</source>
        <translation>请检查 macOS 版本（&apos;sw_vers&apos;）。如果版本较旧，请更新 macOS，或安装支持它的较旧 PyTorch 版本（无论消息怎么说，较新的版本需要较新的 macOS：PyTorch 2.5 到 2.9 需要 macOS 13，PyTorch 2.10 及更新版本需要 macOS 14）；在此期间 CPU 可以运行。如果 macOS 比这更新，请先将其与该版本的实际最低要求比较；超过后，MPS 缺失另有原因：没有 Metal GPU 的 Mac、虚拟机，或在 Apple silicon 上通过 Rosetta 运行的 x86-64 Python（&apos;python3 -c &quot;import platform; print(platform.machine())&quot;&apos; 应输出 arm64）。</translation>
    </message>
    <message>
        <source>{component} reported {name} (status {number}): {meaning}</source>
        <translation>{component} 报告了 {name}（状态 {number}）：{meaning}</translation>
    </message>
    <message>
        <source>The NVIDIA driver&apos;s parts do not match (often after a driver update without a restart). Restart the computer; if it persists, reinstall the NVIDIA driver.</source>
        <translation>NVIDIA 驱动程序的各部分版本不一致（通常发生在更新驱动程序后未重启时）。请重启计算机；如果问题仍然存在，请重新安装 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>Windows reported {name} ({number}, {hex}): {meaning}</source>
        <translation>Windows 报告了 {name}（{number}，{hex}）：{meaning}</translation>
    </message>
    <message>
        <source>A program or one of the libraries it loads failed with this Windows error. For a module or DLL error, reinstall the package that ships the DLL and install the latest Microsoft Visual C++ Redistributable; for a memory error, close other programs or enlarge the paging file.</source>
        <translation>某个程序或其加载的库因这个 Windows 错误而失败。如果是模块或 DLL 错误，请重新安装提供该 DLL 的软件包，并安装最新的 Microsoft Visual C++ Redistributable；如果是内存错误，请关闭其他程序或增大页面文件。</translation>
    </message>
    <message>
        <source>The system could not load {library}, part of {component}: the file was not found.</source>
        <translation>系统无法加载 {component} 的一部分 {library}：找不到该文件。</translation>
    </message>
    <message>
        <source>Install {component} (it ships as {package}) in the same environment as the program, or make its folder known to the loader (LD_LIBRARY_PATH).</source>
        <translation>请在程序所在的同一环境中安装 {component}（以 {package} 的形式提供），或让加载器知道它所在的文件夹（LD_LIBRARY_PATH）。</translation>
    </message>
    <message>
        <source>{library}, part of {component}, lacks the symbol {symbol}: another version of it, or of a library it needs, was loaded.</source>
        <translation>{component} 的一部分 {library} 缺少符号 {symbol}：加载了它的另一个版本，或它所依赖的某个库的另一个版本。</translation>
    </message>
    <message>
        <source>Two versions of {component} are probably installed. Keep the one the program was built for ({package}), and remove others from LD_LIBRARY_PATH and the system&apos;s library folders.</source>
        <translation>可能安装了两个版本的 {component}。请保留程序构建时所用的那个（{package}），并从 LD_LIBRARY_PATH 和系统库文件夹中移除其他版本。</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), install {machine_build}: &apos;{machine_command}&apos;.</source>
        <translation>对于这台机器（{machine_gpu}，计算能力 {machine_capability}，驱动 {machine_driver}），请安装 {machine_build}：&apos;{machine_command}&apos;。</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), install {machine_build} with Python {machine_python} (there is no such build for Python {log_python}, which the log shows): &apos;{machine_command}&apos;.</source>
        <translation>对于这台机器（{machine_gpu}，计算能力 {machine_capability}，驱动 {machine_driver}），请使用 Python {machine_python} 安装 {machine_build}（日志显示的 Python {log_python} 没有此构建版本）：&apos;{machine_command}&apos;。</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), {machine_build} fits once the NVIDIA driver is updated to {machine_min_driver} or newer; then: &apos;{machine_command}&apos;.</source>
        <translation>对于这台机器（{machine_gpu}，计算能力 {machine_capability}，驱动 {machine_driver}），将 NVIDIA 驱动更新到 {machine_min_driver} 或更新版本后即可使用 {machine_build}；之后运行：&apos;{machine_command}&apos;。</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), no {machine_framework} build that this wizard knows uses the GPU; {machine_build} runs on the CPU: &apos;{machine_command}&apos;.</source>
        <translation>对于这台机器（{machine_gpu}，计算能力 {machine_capability}，驱动 {machine_driver}），本向导已知的 {machine_framework} 构建版本都无法使用该 GPU；{machine_build} 在 CPU 上运行：&apos;{machine_command}&apos;。</translation>
    </message>
    <message>
        <source>This machine has no NVIDIA GPU, so the CPU build is the one that runs here: run the code on the CPU (device &apos;cpu&apos; instead of &apos;cuda&apos;; many programs have an option for it, such as --cpu or --device cpu).</source>
        <translation>这台机器没有 NVIDIA GPU，所以能在这里运行的是 CPU 版本：请在 CPU 上运行代码（用设备 &apos;cpu&apos; 代替 &apos;cuda&apos;；许多程序都有相应选项，例如 --cpu 或 --device cpu）。</translation>
    </message>
    <message>
        <source>This machine has no NVIDIA GPU, so TensorFlow runs on the CPU without {libraries}, as the log&apos;s next line says (&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;): nothing needs fixing.</source>
        <translation>这台机器没有 NVIDIA GPU，所以 TensorFlow 在没有 {libraries} 的情况下使用 CPU 运行，正如日志的下一行所说（&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;）：无需修复。</translation>
    </message>
    <message>
        <source>This machine has no NVIDIA GPU, so TensorFlow runs on the CPU here, as the log says: nothing needs fixing.</source>
        <translation>本机没有 NVIDIA GPU,因此 TensorFlow 在这里于 CPU 上运行,正如日志所述:无需修复。</translation>
    </message>
    <message>
        <source>The log itself says to ignore this where no GPU is set up (&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;): on a machine without an NVIDIA GPU, TensorFlow runs on the CPU and nothing needs fixing. On a machine with one:</source>
        <translation>日志本身说明在未配置 GPU 的机器上可以忽略此信息(&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;):在没有 NVIDIA GPU 的机器上,TensorFlow 在 CPU 上运行,无需修复。在有 GPU 的机器上:</translation>
    </message>
    <message>
        <source>If the machine this log comes from has no NVIDIA GPU, this is expected: TensorFlow runs on the CPU there, and nothing needs fixing. If it has one:</source>
        <translation>如果此日志来自的机器没有 NVIDIA GPU,这是预期的:TensorFlow 在那里于 CPU 上运行,无需修复。如果它有 GPU:</translation>
    </message>
    <message>
        <source>For GPU training, run it on a machine with an NVIDIA GPU, with a CUDA build of the framework.</source>
        <extracomment>Where the GPU way is, after a sentence for a machine without an NVIDIA GPU.</extracomment>
        <translation>要进行 GPU 训练，请在带 NVIDIA GPU 的机器上使用框架的 CUDA 版本运行。</translation>
    </message>
    <message>
        <source>If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild or reinstall it for this GPU.</source>
        <extracomment>What follows the machine&apos;s sentence of these keys when it replaces the generic advice, whatever the code (before :data:`CONTEXT_TAILS`, which is by code). What follows the machine&apos;s sentence when it replaces a code&apos;s generic advice.</extracomment>
        <translation>如果错误来自单独构建的扩展（detectron2、mamba-ssm、flash-attn），请为此 GPU 重新构建或重新安装它。</translation>
    </message>
    <message>
        <source>Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>在此之前，GPU 任务会失败并报错 &apos;no kernel image is available for execution on the device&apos;。</translation>
    </message>
    <message>
        <source>Uninstall the CPU build first (&apos;pip uninstall torch&apos;), so that pip does not keep it.</source>
        <translation>请先卸载 CPU 构建版本（&apos;pip uninstall torch&apos;），以免 pip 保留它。</translation>
    </message>
    <message>
        <source>The NVIDIA driver&apos;s kernel module is not running, so no program can reach the GPU.</source>
        <translation>NVIDIA 驱动的内核模块未运行，因此任何程序都无法访问 GPU。</translation>
    </message>
    <message>
        <source>Usually the driver or the kernel was updated and the module for the running kernel was not loaded or not built. Restart the computer first. If it persists, build the module for the running kernel: install its headers (&apos;sudo apt install linux-headers-$(uname -r)&apos; on Ubuntu and Debian) and run &apos;sudo dkms autoinstall&apos; (on Fedora with RPM Fusion: &apos;sudo akmods --force&apos;), or reinstall the driver package, then restart. With Secure Boot on, the module must be signed (enrol the key the driver installer offers) or the kernel refuses it: &apos;sudo dmesg | grep -i nvidia&apos; says why it did not load. In a container, the host&apos;s driver must work and the container must be started with GPU access (&apos;docker run --gpus all ...&apos;). Check with &apos;nvidia-smi&apos;. In WSL 2 there is no Linux kernel module: the driver is the Windows one, so update it on Windows and do not install a Linux NVIDIA driver inside WSL.</source>
        <translation>通常是驱动或内核已更新，而正在运行的内核所对应的模块没有加载或没有构建。请先重启计算机。如果问题仍然存在，请为正在运行的内核构建模块：安装其头文件（在 Ubuntu 和 Debian 上运行 &apos;sudo apt install linux-headers-$(uname -r)&apos;）并运行 &apos;sudo dkms autoinstall&apos;（在使用 RPM Fusion 的 Fedora 上运行 &apos;sudo akmods --force&apos;），或者重新安装驱动软件包，然后重启。启用 Secure Boot 时，模块必须经过签名（登记驱动安装程序提供的密钥），否则内核会拒绝加载它：&apos;sudo dmesg | grep -i nvidia&apos; 会说明它未能加载的原因。在容器中，主机的驱动必须正常工作，并且容器启动时必须具有 GPU 访问权限（&apos;docker run --gpus all ...&apos;）。请用 &apos;nvidia-smi&apos; 检查。WSL 2 中没有 Linux 内核模块：驱动就是 Windows 驱动，因此请在 Windows 上更新它，不要在 WSL 内安装 Linux NVIDIA 驱动。</translation>
    </message>
    <message>
        <source>The NVIDIA driver libraries are version {client} but the loaded kernel module is version {module}: the driver was updated without reloading its kernel module.</source>
        <translation>NVIDIA 驱动库的版本为 {client}，但已加载的内核模块版本为 {module}：驱动已更新，但其内核模块没有重新加载。</translation>
    </message>
    <message>
        <source>Restart the computer: the new module {client} is then loaded. Without a restart, reload the module: &apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos; (possible only when no program, such as the desktop, uses the GPU). If the mismatch comes back after a restart, the module for the running kernel was not rebuilt: run &apos;sudo dkms autoinstall&apos; (or reinstall the driver package) so that &apos;modinfo -F version nvidia&apos; prints {client}, then restart.</source>
        <translation>请重启计算机：重启后会加载新模块 {client}。如果不重启，请重新加载模块：&apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos;（仅当没有程序（例如桌面）使用 GPU 时才可行）。如果重启后版本不匹配仍然出现，说明没有为正在运行的内核重新构建模块：请运行 &apos;sudo dkms autoinstall&apos;（或重新安装驱动软件包），使 &apos;modinfo -F version nvidia&apos; 输出 {client}，然后重启。</translation>
    </message>
    <message>
        <source>CUDA error 803 (system has unsupported display driver / cuda driver combination): the CUDA driver library loaded does not match the NVIDIA kernel module.</source>
        <translation>CUDA 错误 803（system has unsupported display driver / cuda driver combination）：加载的 CUDA 驱动库与 NVIDIA 内核模块不匹配。</translation>
    </message>
    <message>
        <source>After a driver update, restart the computer (or reload the module: &apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos;, possible only when no program, such as the desktop, uses the GPU), so that the kernel module and libcuda have the same version; &apos;cat /sys/module/nvidia/version&apos; shows the module&apos;s. In a container whose host works, the image&apos;s CUDA forward-compatibility libcuda (/usr/local/cuda/compat) does not fit the host driver: take that folder out of LD_LIBRARY_PATH (or /etc/ld.so.conf.d) so the host&apos;s libcuda is used, or update the host driver to one that supports the image&apos;s CUDA.</source>
        <translation>驱动更新后，请重启计算机（或重新加载模块：&apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos;，仅当没有程序（例如桌面）使用 GPU 时才可行），使内核模块与 libcuda 的版本一致；&apos;cat /sys/module/nvidia/version&apos; 会显示模块的版本。如果是在主机正常工作的容器中，说明镜像中的 CUDA 前向兼容 libcuda（/usr/local/cuda/compat）与主机驱动不匹配：请将该文件夹从 LD_LIBRARY_PATH（或 /etc/ld.so.conf.d）中移除，以便使用主机的 libcuda，或者将主机驱动更新到支持该镜像 CUDA 版本的版本。</translation>
    </message>
    <message>
        <source>CUDA could not start: the system is not ready yet (error 802, &apos;system not yet initialized&apos;), which on servers whose GPUs are joined by NVSwitch means NVIDIA Fabric Manager is not running.</source>
        <translation>CUDA 无法启动：系统尚未就绪（错误 802，&apos;system not yet initialized&apos;），在 GPU 通过 NVSwitch 互连的服务器上，这意味着 NVIDIA Fabric Manager 未在运行。</translation>
    </message>
    <message>
        <source>On HGX and DGX servers (4 or 8 A100, H100, H200 or B200 GPUs joined by NVSwitch), install NVIDIA Fabric Manager of exactly the driver&apos;s version (for driver 570.x, the package nvidia-fabricmanager-570 at the same version) and start it: &apos;sudo systemctl enable --now nvidia-fabricmanager&apos;. &apos;systemctl status nvidia-fabricmanager&apos; shows why it stopped (a version that does not match the driver is refused), and &apos;nvidia-smi -q&apos; shows the fabric state of each GPU. In a container, this is done on the host.</source>
        <translation>在 HGX 和 DGX 服务器（4 或 8 块通过 NVSwitch 互连的 A100、H100、H200 或 B200 GPU）上，请安装与驱动版本完全一致的 NVIDIA Fabric Manager（对于 570.x 驱动，即相同版本的 nvidia-fabricmanager-570 包）并启动它：&apos;sudo systemctl enable --now nvidia-fabricmanager&apos;。&apos;systemctl status nvidia-fabricmanager&apos; 可显示它停止的原因（与驱动版本不匹配的版本会被拒绝），&apos;nvidia-smi -q&apos; 可显示每块 GPU 的 fabric 状态。在容器中，此操作需在宿主机上进行。</translation>
    </message>
    <message>
        <source>CUDA could not initialise (error 3, &apos;initialization error&apos;), so the program runs on the CPU or stops.</source>
        <translation>CUDA 无法初始化（错误 3，&apos;initialization error&apos;），因此程序在 CPU 上运行或停止运行。</translation>
    </message>
    <message>
        <source>Check that &apos;nvidia-smi&apos; works, then: restart if the driver was updated since the last start; load the unified-memory module if /dev/nvidia-uvm is missing (&apos;sudo modprobe nvidia_uvm&apos;, or run &apos;nvidia-smi&apos; once as root, which creates it); in a container, start it with GPU access (&apos;--gpus all&apos;). With 575-series drivers, some systems need &apos;options nvidia_uvm uvm_disable_hmm=1&apos; in a file under /etc/modprobe.d, then a restart.</source>
        <translation>请先确认 &apos;nvidia-smi&apos; 可以正常运行，然后：如果驱动自上次启动后已更新，请重启；如果缺少 /dev/nvidia-uvm，请加载统一内存模块（&apos;sudo modprobe nvidia_uvm&apos;，或以 root 身份运行一次 &apos;nvidia-smi&apos;，它会创建该设备）；在容器中，请以 GPU 访问权限启动容器（&apos;--gpus all&apos;）。使用 575 系列驱动时，部分系统需要在 /etc/modprobe.d 下的文件中加入 &apos;options nvidia_uvm uvm_disable_hmm=1&apos;，然后重启。</translation>
    </message>
    <message>
        <source>CUDA error 804 (forward compatibility was attempted on non supported HW): a CUDA forward-compatibility libcuda was loaded, but this GPU does not support it.</source>
        <translation>CUDA 错误 804（forward compatibility was attempted on non supported HW）：加载了 CUDA 前向兼容的 libcuda，但此 GPU 不支持前向兼容。</translation>
    </message>
    <message>
        <source>CUDA error 804 (forward compatibility was attempted on non supported HW): a CUDA forward-compatibility libcuda was loaded (nvidia-smi shows driver {driver} with CUDA {driver_cuda}), but this GPU does not support it.</source>
        <translation>CUDA 错误 804（forward compatibility was attempted on non supported HW）：加载了 CUDA 前向兼容的 libcuda（nvidia-smi 显示驱动 {driver}，CUDA {driver_cuda}），但此 GPU 不支持前向兼容。</translation>
    </message>
    <message>
        <source>Forward compatibility (the cuda-compat package, /usr/local/cuda/compat) works only on NVIDIA data-center GPUs, not on GeForce or most RTX cards. Remove the cuda-compat package from the host (&apos;sudo apt remove cuda-compat-*&apos;) and take /usr/local/cuda/compat out of LD_LIBRARY_PATH, so that driver {driver}&apos;s own libcuda is used; then install a framework build for the CUDA that driver supports, or update the NVIDIA driver to one made for CUDA {driver_cuda} or newer.</source>
        <translation>前向兼容（cuda-compat 软件包，/usr/local/cuda/compat）仅适用于 NVIDIA 数据中心 GPU，不适用于 GeForce 或大多数 RTX 显卡。请从主机上删除 cuda-compat 软件包（&apos;sudo apt remove cuda-compat-*&apos;），并将 /usr/local/cuda/compat 从 LD_LIBRARY_PATH 中移除，以便使用驱动 {driver} 自带的 libcuda；然后安装适用于该驱动所支持 CUDA 版本的框架构建版本，或者将 NVIDIA 驱动更新到适用于 CUDA {driver_cuda} 或更新版本的驱动。</translation>
    </message>
    <message>
        <source>The program asked for a GPU number this process does not have (&apos;invalid device ordinal&apos;).</source>
        <translation>程序请求了此进程没有的 GPU 编号（&apos;invalid device ordinal&apos;）。</translation>
    </message>
    <message>
        <source>GPUs are numbered from 0 among those the process can see, so with one GPU only &apos;cuda:0&apos; exists. Use &apos;cuda&apos; or &apos;cuda:0&apos; instead of &apos;cuda:1&apos; (or a setting such as --gpu 1 or device_ids=[0, 1]), or choose the GPU with CUDA_VISIBLE_DEVICES before starting the program (e.g. &apos;CUDA_VISIBLE_DEVICES=1 python train.py&apos;, then use &apos;cuda:0&apos;). &apos;nvidia-smi -L&apos; lists the GPUs this machine has.</source>
        <translation>GPU 按进程可见的 GPU 从 0 开始编号，因此只有一个 GPU 时只存在 &apos;cuda:0&apos;。请使用 &apos;cuda&apos; 或 &apos;cuda:0&apos; 代替 &apos;cuda:1&apos;（或 --gpu 1、device_ids=[0, 1] 之类的设置），或者在启动程序前用 CUDA_VISIBLE_DEVICES 选择 GPU（例如 &apos;CUDA_VISIBLE_DEVICES=1 python train.py&apos;，然后使用 &apos;cuda:0&apos;）。&apos;nvidia-smi -L&apos; 会列出这台机器上的 GPU。</translation>
    </message>
    <message>
        <source>The program asked for a GPU number this process does not have (&apos;invalid device ordinal&apos;); the log sets CUDA_VISIBLE_DEVICES={visible}.</source>
        <translation>程序请求了此进程没有的 GPU 编号（&apos;invalid device ordinal&apos;）；日志中设置了 CUDA_VISIBLE_DEVICES={visible}。</translation>
    </message>
    <message>
        <source>CUDA_VISIBLE_DEVICES={visible} leaves the process only the GPUs it lists, renumbered from 0: with one GPU listed, only &apos;cuda:0&apos; exists, whatever its number in nvidia-smi. Use &apos;cuda:0&apos; (or one process per listed GPU), or list every GPU the program needs (e.g. CUDA_VISIBLE_DEVICES=0,1). &apos;nvidia-smi -L&apos; lists the GPUs this machine has.</source>
        <translation>CUDA_VISIBLE_DEVICES={visible} 只让进程使用其中列出的 GPU，并从 0 开始重新编号：只列出一个 GPU 时，只存在 &apos;cuda:0&apos;，无论它在 nvidia-smi 中的编号是多少。请使用 &apos;cuda:0&apos;（或为每个列出的 GPU 各启动一个进程），或者列出程序需要的所有 GPU（例如 CUDA_VISIBLE_DEVICES=0,1）。&apos;nvidia-smi -L&apos; 会列出这台机器上的 GPU。</translation>
    </message>
    <message>
        <source>The launcher started {processes} processes per machine, one per GPU, but this process has fewer GPUs (&apos;invalid device ordinal&apos;).</source>
        <translation>启动器在每台机器上启动了 {processes} 个进程（每个 GPU 一个），但此进程可用的 GPU 更少（&apos;invalid device ordinal&apos;）。</translation>
    </message>
    <message>
        <source>Each process takes the GPU numbered by its local rank, so --nproc-per-node must not exceed the number of GPUs visible (nvidia-smi -L lists them; CUDA_VISIBLE_DEVICES narrows them). Set --nproc-per-node to that number (1 for one GPU) or use &apos;--nproc-per-node=gpu&apos;. A model split over {processes} GPUs needs that many GPUs, or a version of it made for fewer.</source>
        <translation>每个进程使用编号为其 local rank 的 GPU，因此 --nproc-per-node 不能超过可见的 GPU 数量（nvidia-smi -L 会列出它们；CUDA_VISIBLE_DEVICES 会缩小范围）。请将 --nproc-per-node 设为该数量（一个 GPU 时设为 1），或使用 &apos;--nproc-per-node=gpu&apos;。拆分到 {processes} 个 GPU 上的模型需要同样数量的 GPU，或者使用为更少 GPU 制作的模型版本。</translation>
    </message>
    <message>
        <source>CUDA found no GPU this process may use (&apos;No CUDA GPUs are available&apos; or &apos;no CUDA-capable device is detected&apos;).</source>
        <translation>CUDA 找不到此进程可以使用的 GPU（&apos;No CUDA GPUs are available&apos; 或 &apos;no CUDA-capable device is detected&apos;）。</translation>
    </message>
    <message>
        <source>Most often CUDA_VISIBLE_DEVICES hides the GPUs: an empty value or -1 hides all of them, and an index this machine does not have (a script that sets os.environ[&apos;CUDA_VISIBLE_DEVICES&apos;] = &apos;3&apos; on a one-GPU machine) hides them too. Check &apos;echo $CUDA_VISIBLE_DEVICES&apos; and the script, and use an index or UUID from &apos;nvidia-smi -L&apos; (0 for the first GPU), or unset it. On a cluster, ask the job scheduler for a GPU (Slurm: --gpus=1 or --gres=gpu:1), which sets CUDA_VISIBLE_DEVICES for the job. If nvidia-smi itself lists no GPU, the driver is the problem; in a container, start it with GPU access (&apos;docker run --gpus all ...&apos;).</source>
        <translation>最常见的原因是 CUDA_VISIBLE_DEVICES 隐藏了 GPU：空值或 -1 会隐藏所有 GPU，而这台机器上不存在的索引（例如在单 GPU 机器上，脚本设置了 os.environ[&apos;CUDA_VISIBLE_DEVICES&apos;] = &apos;3&apos;）也会隐藏它们。请检查 &apos;echo $CUDA_VISIBLE_DEVICES&apos; 和脚本，并使用 &apos;nvidia-smi -L&apos; 中的索引或 UUID（第一个 GPU 为 0），或者取消设置该变量。在集群上，请向作业调度器申请 GPU（Slurm：--gpus=1 或 --gres=gpu:1），它会为作业设置 CUDA_VISIBLE_DEVICES。如果 nvidia-smi 本身没有列出任何 GPU，则问题出在驱动；在容器中，请以 GPU 访问权限启动容器（&apos;docker run --gpus all ...&apos;）。</translation>
    </message>
    <message>
        <source>CUDA found no GPU: CUDA_VISIBLE_DEVICES is set to &apos;{visible}&apos;, which hides every GPU.</source>
        <translation>CUDA 找不到 GPU：CUDA_VISIBLE_DEVICES 被设置为 &apos;{visible}&apos;，这会隐藏所有 GPU。</translation>
    </message>
    <message>
        <source>An empty CUDA_VISIBLE_DEVICES or -1 is the usual way to force the CPU. To use the GPU, unset it (&apos;unset CUDA_VISIBLE_DEVICES&apos;, or remove the line that sets it in the script or the job file) or set it to a GPU from &apos;nvidia-smi -L&apos;, such as CUDA_VISIBLE_DEVICES=0, before the program starts.</source>
        <translation>将 CUDA_VISIBLE_DEVICES 设为空或 -1 是强制使用 CPU 的常用方法。要使用 GPU，请在程序启动前取消设置它（&apos;unset CUDA_VISIBLE_DEVICES&apos;，或删除脚本或作业文件中设置它的那一行），或将它设为 &apos;nvidia-smi -L&apos; 中的某个 GPU，例如 CUDA_VISIBLE_DEVICES=0。</translation>
    </message>
    <message>
        <source>CUDA found no GPU this process may use; the log sets CUDA_VISIBLE_DEVICES={visible}.</source>
        <translation>CUDA 找不到此进程可以使用的 GPU；日志中设置了 CUDA_VISIBLE_DEVICES={visible}。</translation>
    </message>
    <message>
        <source>CUDA_VISIBLE_DEVICES={visible} must name GPUs this machine has: indexes from &apos;nvidia-smi -L&apos; (0 for the first GPU; CUDA counts the fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID) or their UUIDs (GPU-...). An entry that does not exist hides it and everything after it. Set it to an existing GPU, e.g. CUDA_VISIBLE_DEVICES=0 on a one-GPU machine, or unset it.</source>
        <translation>CUDA_VISIBLE_DEVICES={visible} 必须指定这台机器上存在的 GPU：&apos;nvidia-smi -L&apos; 中的索引（第一个 GPU 为 0；除非设置 CUDA_DEVICE_ORDER=PCI_BUS_ID，否则 CUDA 会把最快的 GPU 排在最前）或它们的 UUID（GPU-...）。不存在的条目会隐藏它自身及其后的所有条目。请将其设为存在的 GPU，例如在单 GPU 机器上设为 CUDA_VISIBLE_DEVICES=0，或者取消设置它。</translation>
    </message>
    <message>
        <source>PyTorch counted more GPUs than CUDA lets this process use (&apos;device &gt;= 0 &amp;&amp; device &lt; num_gpus INTERNAL ASSERT FAILED&apos;); usually the GPUs are MIG instances.</source>
        <translation>PyTorch 统计到的 GPU 数量多于 CUDA 允许此进程使用的数量（&apos;device &gt;= 0 &amp;&amp; device &lt; num_gpus INTERNAL ASSERT FAILED&apos;）；这些 GPU 通常是 MIG 实例。</translation>
    </message>
    <message>
        <source>On an A100, H100 or H200 in MIG mode a process can use one MIG instance only, and it is always device 0. Before starting Python, choose the instance: &apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt; python ...&apos; with a UUID from &apos;nvidia-smi -L&apos; (the job scheduler may set it for you), and use &apos;cuda&apos; or &apos;cuda:0&apos;. Do not set CUDA_VISIBLE_DEVICES inside the script after torch has started. Without MIG, check that CUDA_VISIBLE_DEVICES names only GPUs from &apos;nvidia-smi -L&apos;.</source>
        <translation>在处于 MIG 模式的 A100、H100 或 H200 上，一个进程只能使用一个 MIG 实例，并且它始终是设备 0。请在启动 Python 之前选择实例：&apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt; python ...&apos;，其中 UUID 取自 &apos;nvidia-smi -L&apos;（作业调度器可能会替你设置），并使用 &apos;cuda&apos; 或 &apos;cuda:0&apos;。不要在 torch 启动后于脚本内设置 CUDA_VISIBLE_DEVICES。未使用 MIG 时，请检查 CUDA_VISIBLE_DEVICES 中是否只包含 &apos;nvidia-smi -L&apos; 列出的 GPU。</translation>
    </message>
    <message>
        <source>The GPUs are MIG instances, and this process asked for more than the one MIG instance a CUDA process can use.</source>
        <translation>这些 GPU 是 MIG 实例，而此进程请求了多个 MIG 实例，但一个 CUDA 进程只能使用一个 MIG 实例。</translation>
    </message>
    <message>
        <source>A CUDA process sees one MIG instance only, always as device 0 (&apos;cuda:0&apos;), however many instances exist or the container was given. Run one process per instance, each started with &apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt;&apos; (the UUIDs are listed by &apos;nvidia-smi -L&apos;; with drivers before R470 the form is MIG-GPU-&lt;UUID&gt;/&lt;GI&gt;/&lt;CI&gt;), and use &apos;cuda:0&apos; inside it. Training over several MIG instances (torchrun, DDP, NCCL) does not work: use whole GPUs, which the administrator gets back by disabling MIG (&apos;sudo nvidia-smi -i 0 -mig 0&apos; with no process on the GPU).</source>
        <translation>无论存在多少个实例、容器被分配了多少个，一个 CUDA 进程都只能看到一个 MIG 实例，且始终为设备 0（&apos;cuda:0&apos;）。请每个实例运行一个进程，每个进程都以 &apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt;&apos; 启动（UUID 可通过 &apos;nvidia-smi -L&apos; 列出；R470 之前的驱动使用 MIG-GPU-&lt;UUID&gt;/&lt;GI&gt;/&lt;CI&gt; 格式），并在进程内使用 &apos;cuda:0&apos;。跨多个 MIG 实例的训练（torchrun、DDP、NCCL）无法工作：请使用完整的 GPU，管理员可通过禁用 MIG 恢复完整 GPU（在 GPU 上没有进程时运行 &apos;sudo nvidia-smi -i 0 -mig 0&apos;）。</translation>
    </message>
    <message>
        <source>The MIG mode change is not applied: the GPU could not be reset because other programs still use it (&apos;In use by another client&apos;).</source>
        <translation>MIG 模式更改未生效：由于仍有其他程序在使用 GPU，无法重置 GPU（&apos;In use by another client&apos;）。</translation>
    </message>
    <message>
        <source>A MIG mode change takes effect when the GPU is reset, and the reset needs every program off the GPU. Stop what &apos;nvidia-smi&apos; lists, and the services that keep the GPU open: nvidia-persistenced, DCGM or dcgm-exporter, nvidia-fabricmanager, a desktop or X server; unload the display module (&apos;sudo rmmod nvidia_drm&apos;, load it again afterwards). Then reset the GPU (&apos;sudo nvidia-smi --gpu-reset -i 0&apos;) or apply the MIG configuration again, or simply restart the computer, which applies the pending mode. In a virtual machine whose hypervisor forbids a reset, restart the VM.</source>
        <translation>MIG 模式更改在 GPU 重置后生效，而重置要求所有程序都停止使用 GPU。请停止 &apos;nvidia-smi&apos; 列出的程序，以及会保持 GPU 打开的服务：nvidia-persistenced、DCGM 或 dcgm-exporter、nvidia-fabricmanager、桌面环境或 X 服务器；卸载显示模块（&apos;sudo rmmod nvidia_drm&apos;，之后再重新加载）。然后重置 GPU（&apos;sudo nvidia-smi --gpu-reset -i 0&apos;）或重新应用 MIG 配置，或者直接重启计算机，重启会应用待生效的模式。如果虚拟机的 hypervisor 禁止重置，请重启虚拟机。</translation>
    </message>
    <message>
        <source>CUDA could not open the GPU: it is busy or unavailable to this process (&apos;CUDA-capable device(s) is/are busy or unavailable&apos;).</source>
        <translation>CUDA 无法打开 GPU：GPU 正忙，或对此进程不可用（&apos;CUDA-capable device(s) is/are busy or unavailable&apos;）。</translation>
    </message>
    <message>
        <source>Another process may hold a GPU set to exclusive use: &apos;nvidia-smi&apos; lists the processes and, under &apos;Compute M.&apos;, the mode (&apos;E. Process&apos; lets one process at a time use the GPU). Stop that process (or a stuck earlier run of yours), or choose a free GPU with CUDA_VISIBLE_DEVICES. On a shared server or cluster, ask for the GPU through the job scheduler; an administrator can allow sharing with &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos;. If no process uses the GPU, restart the computer (a virtual GPU may also need its licence).</source>
        <translation>可能有另一个进程占用了设为独占使用的 GPU：&apos;nvidia-smi&apos; 会列出进程，并在 &apos;Compute M.&apos; 下显示模式（&apos;E. Process&apos; 表示同一时间只允许一个进程使用该 GPU）。请停止该进程（或你自己之前卡住的运行），或通过 CUDA_VISIBLE_DEVICES 选择一个空闲的 GPU。在共享服务器或集群上，请通过作业调度器申请 GPU；管理员可以用 &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos; 允许共享。如果没有进程在使用 GPU，请重启计算机（虚拟 GPU 可能还需要相应的许可证）。</translation>
    </message>
    <message>
        <source>CUDA could not open the GPU: it is in an exclusive compute mode (&apos;E. Process&apos;) and another process already uses it.</source>
        <translation>CUDA 无法打开 GPU：GPU 处于独占计算模式（&apos;E. Process&apos;），且已有另一个进程在使用它。</translation>
    </message>
    <message>
        <source>In exclusive-process mode only one process at a time may use the GPU. &apos;nvidia-smi&apos; lists the process that holds it: wait for it or stop it, or choose another GPU with CUDA_VISIBLE_DEVICES (use a GPU whose &apos;Compute M.&apos; is &apos;Default&apos; or that has no process). An administrator can allow sharing with &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos;; on a cluster the exclusive mode is usually intended, so ask the job scheduler for a GPU.</source>
        <translation>在独占进程模式下，同一时间只能有一个进程使用 GPU。&apos;nvidia-smi&apos; 会列出占用它的进程：请等待该进程结束或将其停止，或通过 CUDA_VISIBLE_DEVICES 选择另一个 GPU（选择 &apos;Compute M.&apos; 为 &apos;Default&apos; 或没有进程的 GPU）。管理员可以用 &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos; 允许共享；在集群上，独占模式通常是有意设置的，因此请通过作业调度器申请 GPU。</translation>
    </message>
    <message>
        <source>A process forked after CUDA had started tried to use the GPU (&apos;Cannot re-initialize CUDA in forked subprocess&apos;).</source>
        <translation>在 CUDA 启动后 fork 出的进程尝试使用 GPU（&apos;Cannot re-initialize CUDA in forked subprocess&apos;）。</translation>
    </message>
    <message>
        <source>CUDA cannot be used in a process created by fork (the default start method on Linux) once the parent has used it. Start worker processes with &apos;spawn&apos;: call &apos;torch.multiprocessing.set_start_method(&quot;spawn&quot;, force=True)&apos; at the start of the &apos;if __name__ == &quot;__main__&quot;:&apos; block, or use &apos;multiprocessing.get_context(&quot;spawn&quot;)&apos;; for a DataLoader, pass multiprocessing_context=&quot;spawn&quot; or keep GPU work out of the Dataset (move tensors to the GPU in the training loop), or set num_workers=0. Or do not touch CUDA in the parent before the workers start.</source>
        <translation>一旦父进程使用过 CUDA，通过 fork（Linux 上的默认启动方式）创建的进程就无法再使用 CUDA。请使用 &apos;spawn&apos; 启动工作进程：在 &apos;if __name__ == &quot;__main__&quot;:&apos; 代码块开头调用 &apos;torch.multiprocessing.set_start_method(&quot;spawn&quot;, force=True)&apos;，或使用 &apos;multiprocessing.get_context(&quot;spawn&quot;)&apos;；对于 DataLoader，传入 multiprocessing_context=&quot;spawn&quot;，或不要在 Dataset 中进行 GPU 操作（在训练循环中再将张量移到 GPU），或设置 num_workers=0。也可以在工作进程启动之前，不在父进程中使用 CUDA。</translation>
    </message>
    <message>
        <source>Check, in this order: install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe and restart; check that the CPU supports AVX (TensorFlow&apos;s packages need it since 1.6); check that Python is 64-bit (&apos;python -c &quot;import struct; print(struct.calcsize(&apos;P&apos;) * 8)&quot;&apos; prints 64) and a version the TensorFlow release supports; for tensorflow-gpu 2.10 or older, put the CUDA and cuDNN DLLs of its release on PATH. Then reinstall tensorflow in a fresh virtual environment.</source>
        <translation>请按以下顺序检查：从 https://aka.ms/vs/17/release/vc_redist.x64.exe 安装最新的 Microsoft Visual C++ Redistributable (x64) 并重启；检查 CPU 是否支持 AVX（TensorFlow 的包自 1.6 起需要 AVX）；检查 Python 是否为 64 位（&apos;python -c &quot;import struct; print(struct.calcsize(&apos;P&apos;) * 8)&quot;&apos; 输出 64），且版本受该 TensorFlow 版本支持；对于 tensorflow-gpu 2.10 或更早版本，将其对应版本的 CUDA 和 cuDNN DLL 加入 PATH。然后在新的虚拟环境中重新安装 tensorflow。</translation>
    </message>
    <message>
        <source>{package} has no installable version for Python {python}: no wheels for this Python.</source>
        <translation>{package} 没有适用于 Python {python} 的可安装版本：没有适用于此 Python 的 wheel 包。</translation>
    </message>
    <message>
        <source>Frameworks publish wheels for a range of Python versions per release, and Python {python} is outside it. Create the environment with a Python the release supports: Python 3.12 works with every PyTorch from 2.2 and TensorFlow 2.16 to 2.21 (TensorFlow 2.20 and newer also support 3.13, PyTorch 2.9 and newer 3.14), e.g. &apos;uv venv --python 3.12&apos; or &apos;conda create -n ENV python=3.12&apos;. For an old pinned release, use the older Python it was built for, or a newer release of {package} that supports Python {python}. The wizard&apos;s Choose page picks a Python and a build that exist together.</source>
        <translation>各框架的每个版本只为一定范围内的 Python 版本发布 wheel 包，而 Python {python} 不在该范围内。请使用该版本支持的 Python 创建环境：Python 3.12 适用于 2.2 起的所有 PyTorch 版本以及 TensorFlow 2.16 至 2.21（TensorFlow 2.20 及更新版本还支持 3.13，PyTorch 2.9 及更新版本还支持 3.14），例如 &apos;uv venv --python 3.12&apos; 或 &apos;conda create -n ENV python=3.12&apos;。对于固定的旧版本，请使用构建该版本时所针对的旧版 Python，或改用支持 Python {python} 的较新版本 {package}。向导的“选择”页面会选出相互匹配的 Python 和构建版本。</translation>
    </message>
    <message>
        <source>{package} has wheels for Python {available} only, not for Python {python}.</source>
        <translation>{package} 仅有适用于 Python {available} 的 wheel 包，没有适用于 Python {python} 的 wheel 包。</translation>
    </message>
    <message>
        <source>Create the environment with Python {suggested}, the newest of those: &apos;uv venv --python {suggested}&apos; (uv downloads it if needed) or &apos;conda create -n ENV python={suggested}&apos;, then install again. Or choose a newer release of {package} that has wheels for Python {python}; the wizard&apos;s Choose page picks a Python and a build that exist together.</source>
        <translation>请使用其中最新的 Python {suggested} 创建环境：&apos;uv venv --python {suggested}&apos;（如有需要，uv 会自动下载）或 &apos;conda create -n ENV python={suggested}&apos;，然后重新安装。也可以选择提供 Python {python} wheel 包的较新版本 {package}；向导的“选择”页面会选出相互匹配的 Python 和构建版本。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded on Windows (&apos;DLL load failed&apos;); the log does not say which cause.</source>
        <translation>在 Windows 上无法加载 TensorFlow 的原生库（&apos;DLL load failed&apos;）；日志中未指明具体原因。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library failed to initialise (Windows error 1114, &apos;DLL initialization routine failed&apos;): most likely this CPU lacks the AVX instructions TensorFlow&apos;s packages need.</source>
        <translation>TensorFlow 的原生库初始化失败（Windows 错误 1114，&apos;DLL initialization routine failed&apos;）：最可能的原因是此 CPU 缺少 TensorFlow 的包所需的 AVX 指令。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s official packages use AVX since release 1.6. Check the CPU: look its model up on the maker&apos;s site (Settings &gt; System &gt; About names it), or run Microsoft&apos;s Coreinfo, which marks AVX with &apos;*&apos; when the CPU has it. Without AVX, these packages cannot run here: use another machine or a hosted notebook (Colab), or a build made without AVX. With AVX, the other cause of this error is an old Visual C++ runtime: install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe, restart, and reinstall tensorflow in a fresh virtual environment.</source>
        <translation>TensorFlow 的官方包自 1.6 版本起使用 AVX。请检查 CPU：在制造商网站上查询其型号（可在“设置 &gt; 系统 &gt; 关于”中查看型号），或运行 Microsoft 的 Coreinfo，若 CPU 支持 AVX，它会用 &apos;*&apos; 标记。没有 AVX 时，这些包无法在此运行：请使用其他机器或托管的 notebook（Colab），或使用不依赖 AVX 的构建版本。如果 CPU 支持 AVX，此错误的另一个原因是 Visual C++ 运行时过旧：从 https://aka.ms/vs/17/release/vc_redist.x64.exe 安装最新的 Microsoft Visual C++ Redistributable (x64)，重启，然后在新的虚拟环境中重新安装 tensorflow。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded: a DLL it needs was not found (Windows error 126), most often the Microsoft Visual C++ runtime.</source>
        <translation>无法加载 TensorFlow 的原生库：未找到它所需的某个 DLL（Windows 错误 126），最常见的是 Microsoft Visual C++ 运行时。</translation>
    </message>
    <message>
        <source>Install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe and restart: TensorFlow&apos;s Windows packages since 2.1 need its msvcp140_1.dll. If the error stays: check that Python is 64-bit and a version the TensorFlow release supports, and for tensorflow-gpu 2.10 or older that the CUDA and cuDNN DLLs of its release are on PATH; then reinstall tensorflow in a fresh virtual environment.</source>
        <translation>从 https://aka.ms/vs/17/release/vc_redist.x64.exe 安装最新的 Microsoft Visual C++ Redistributable (x64) 并重启：TensorFlow 自 2.1 起的 Windows 包需要其中的 msvcp140_1.dll。如果错误仍然存在：检查 Python 是否为 64 位且版本受该 TensorFlow 版本支持；对于 tensorflow-gpu 2.10 或更早版本，检查其对应版本的 CUDA 和 cuDNN DLL 是否在 PATH 中；然后在新的虚拟环境中重新安装 tensorflow。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s GPU build could not be loaded: it needs {library}, a CUDA library of one CUDA release, and Windows did not find it.</source>
        <translation>无法加载 TensorFlow 的 GPU 构建版本：它需要 {library}（特定 CUDA 版本的 CUDA 库），而 Windows 未找到该文件。</translation>
    </message>
    <message>
        <source>TensorFlow 2.0 and older GPU builds load the exact CUDA and cuDNN release they were built for; the file name tells which (cudart64_100.dll is CUDA 10.0, cudart64_90.dll CUDA 9.0, cudnn64_7.dll cuDNN 7). Install that CUDA and cuDNN and put their bin folders on PATH; a renamed DLL of another release does not work. Better, use a current TensorFlow: the last GPU release for native Windows is 2.10 (CUDA 11.2, cuDNN 8.1), and newer releases use the GPU through WSL 2.</source>
        <translation>TensorFlow 2.0 及更早的 GPU 构建版本会加载其构建时所针对的确切 CUDA 和 cuDNN 版本；文件名表明了具体版本（cudart64_100.dll 为 CUDA 10.0，cudart64_90.dll 为 CUDA 9.0，cudnn64_7.dll 为 cuDNN 7）。请安装相应的 CUDA 和 cuDNN，并将它们的 bin 文件夹加入 PATH；把其他版本的 DLL 重命名后使用是行不通的。更好的做法是使用当前版本的 TensorFlow：原生 Windows 上最后一个支持 GPU 的版本是 2.10（CUDA 11.2、cuDNN 8.1），更新的版本通过 WSL 2 使用 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded, and the log shows a 32-bit Python: TensorFlow is built for 64-bit Python only.</source>
        <translation>无法加载 TensorFlow 的原生库，且日志显示使用的是 32 位 Python：TensorFlow 仅为 64 位 Python 构建。</translation>
    </message>
    <message>
        <source>Install a 64-bit Python from python.org (&apos;Windows installer (64-bit)&apos;) in the range your TensorFlow release supports (Python 3.12 for TensorFlow 2.16 to 2.21), create a fresh virtual environment with it and install tensorflow there.</source>
        <translation>从 python.org 安装 64 位 Python（&apos;Windows installer (64-bit)&apos;），其版本需在你的 TensorFlow 版本支持的范围内（TensorFlow 2.16 至 2.21 可用 Python 3.12），用它创建一个新的虚拟环境，并在其中安装 tensorflow。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded, and the log shows the Microsoft Store build of Python.</source>
        <translation>无法加载 TensorFlow 的原生库，且日志显示使用的是 Microsoft Store 版的 Python。</translation>
    </message>
    <message>
        <source>The Store build runs in a sandbox that redirects its package folders, and loading TensorFlow&apos;s DLLs from there is known to fail (TensorFlow issues #48868, #61438). Install Python from python.org (64-bit), create a fresh virtual environment with it and install tensorflow there; install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe too.</source>
        <translation>Store 版 Python 运行在沙盒中，其包文件夹会被重定向，已知从该位置加载 TensorFlow 的 DLL 会失败（TensorFlow issues #48868、#61438）。请从 python.org 安装 Python（64 位），用它创建一个新的虚拟环境，并在其中安装 tensorflow；同时从 https://aka.ms/vs/17/release/vc_redist.x64.exe 安装最新的 Microsoft Visual C++ Redistributable (x64)。</translation>
    </message>
    <message>
        <source>JAX is installed without CUDA support, so it runs on the CPU although an NVIDIA GPU may be present (&apos;a CUDA-enabled jaxlib is not installed&apos;).</source>
        <translation>已安装的 JAX 不支持 CUDA，因此即使存在 NVIDIA GPU，它也在 CPU 上运行（&apos;a CUDA-enabled jaxlib is not installed&apos;）。</translation>
    </message>
    <message>
        <source>A compiled module could not be imported: it was built against {components} and needs {libraries}, which is not on this machine&apos;s library path.</source>
        <translation>无法导入一个已编译的模块：它是针对 {components} 构建的，需要 {libraries}，而该库不在本机的库搜索路径中。</translation>
    </message>
    <message>
        <source>Framework wheels bring their own CUDA libraries, so a module that looks for {libraries} on the system was built for {components}. Find the package whose import failed (the last &apos;File&apos; lines of the traceback name it: mmcv, detectron2, a custom CUDA operator) and install its build for the CUDA your framework uses (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; shows it): from the package&apos;s index for that CUDA and torch, or built again from source against them. Only where no such build exists, install {components} and add its lib64 folder to LD_LIBRARY_PATH.</source>
        <translation>框架的 wheel 自带 CUDA 库，因此在系统中查找 {libraries} 的模块是为 {components} 构建的。找到导入失败的软件包（traceback 最后几行 &apos;File&apos; 会指出它：mmcv、detectron2 或自定义的 CUDA 算子），并安装为你的框架所用 CUDA 构建的版本（&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; 可显示该版本）：从该软件包针对此 CUDA 和 torch 的索引安装，或针对它们从源码重新构建。只有在没有这样的版本时，才安装 {components} 并将其 lib64 文件夹加入 LD_LIBRARY_PATH。</translation>
    </message>
    <message>
        <source>{package} could not be imported: its compiled part was built against {components} and needs {libraries}, which is not on this machine&apos;s library path.</source>
        <translation>无法导入 {package}：其编译部分是针对 {components} 构建的，需要 {libraries}，而该库不在本机的库搜索路径中。</translation>
    </message>
    <message>
        <source>Framework wheels bring their own CUDA libraries, so a module that looks for {libraries} on the system was built for {components}. Install the {package} build made for the CUDA and torch your environment uses (&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda)&quot;&apos; shows them): from its project&apos;s index for that CUDA and torch (OpenMMLab: &apos;mim install mmcv&apos;), or built again from source against them (&apos;pip uninstall {package}&apos; first). Only where no such build exists, install {components} and add its lib64 folder to LD_LIBRARY_PATH.</source>
        <translation>框架的 wheel 自带 CUDA 库，因此在系统中查找 {libraries} 的模块是为 {components} 构建的。请安装为你的环境所用 CUDA 和 torch 构建的 {package} 版本（&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda)&quot;&apos; 可显示它们）：从其项目针对此 CUDA 和 torch 的索引安装（OpenMMLab：&apos;mim install mmcv&apos;），或针对它们从源码重新构建（先执行 &apos;pip uninstall {package}&apos;）。只有在没有这样的版本时，才安装 {components} 并将其 lib64 文件夹加入 LD_LIBRARY_PATH。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart, or install a framework build for an older CUDA. In a container, the host&apos;s driver is the one that counts: where &apos;nvidia-smi&apos; on the host shows a driver new enough, the container was given an older driver&apos;s libraries; after a driver update, regenerate the device list (&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos;) and restart the container.</source>
        <translation>请从 https://www.nvidia.com/Download/index.aspx 更新 NVIDIA 驱动并重启，或安装面向较旧 CUDA 的框架版本。在容器中，起作用的是主机的驱动。如果主机上的 &apos;nvidia-smi&apos; 显示的驱动已足够新，说明容器拿到的是旧驱动的库：更新驱动后，请重新生成设备列表（&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos;）并重启容器。</translation>
    </message>
    <message>
        <source>Reinstall the NVIDIA driver from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;), restart the computer, and run {verify} again. An interrupted driver update, or a Linux kernel update without the driver&apos;s module, leaves this state.</source>
        <translation>从 https://www.nvidia.com/Download/index.aspx 重新安装 NVIDIA 驱动程序（在 Ubuntu 上：&apos;sudo ubuntu-drivers install&apos;），重新启动计算机，然后再次运行 {verify}。中断的驱动程序更新，或没有驱动程序模块的 Linux 内核更新，会造成这种状态。</translation>
    </message>
    <message>
        <source>Install driver {min_driver} or newer from https://www.nvidia.com/Download/index.aspx and restart; or recreate the environment, which chooses a build this driver runs: {recreate}</source>
        <translation>从 https://www.nvidia.com/Download/index.aspx 安装 {min_driver} 或更新的驱动程序并重新启动；或者重新创建环境，它会选择此驱动程序能运行的构建：{recreate}</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos;: a GPU that fell off the bus (&apos;GPU is lost&apos;, Xid 79) needs a restart; check its power cables and seating; in a VM or container, check that the GPU is still passed through. Then run {verify} again.</source>
        <translation>运行 &apos;nvidia-smi&apos;：从总线上掉线的 GPU（&apos;GPU is lost&apos;，Xid 79）需要重新启动；检查其电源线和安装是否牢固；在虚拟机或容器中，检查 GPU 是否仍被直通。然后再次运行 {verify}。</translation>
    </message>
    <message>
        <source>Nothing to do while the live test passes; a GPU of a newer generation may need a newer framework build, which {recommend} names.</source>
        <translation>只要实时测试通过就无需任何操作；更新一代的 GPU 可能需要更新的框架构建，{recommend} 会给出。</translation>
    </message>
    <message>
        <source>Check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides GPUs), that &apos;nvidia-smi&apos; lists every GPU, and that the driver is new enough for the build; then run {verify} again.</source>
        <translation>检查 CUDA_VISIBLE_DEVICES（空值或错误的索引会隐藏 GPU）、&apos;nvidia-smi&apos; 是否列出每个 GPU，以及驱动程序对该构建是否足够新；然后再次运行 {verify}。</translation>
    </message>
    <message>
        <source>The test says: {reason} Fix that (the other checks above may name the cause), then run {test} for the full test.</source>
        <translation>测试显示：{reason} 请修复它（上面的其他检查可能会指出原因），然后运行 {test} 进行完整测试。</translation>
    </message>
    <message>
        <source>The test says: {reason} Fix that, then run {test} for the full test; once it passes, it is recorded as the last good state.</source>
        <translation>测试显示：{reason} 请修复它，然后运行 {test} 进行完整测试；通过后，它会被记录为最近的良好状态。</translation>
    </message>
    <message>
        <source>Another program may be using the GPU, or it is throttling from heat or power saving: check &apos;nvidia-smi&apos; and run {test} for the full measurement.</source>
        <translation>可能有其他程序正在使用 GPU，或者它因过热或节能而降频：请检查 &apos;nvidia-smi&apos;，并运行 {test} 进行完整测量。</translation>
    </message>
    <message>
        <source>An installer or another tool rewrote PATH. Add it back: {command}  ({history} shows what the wizard changed.)</source>
        <translation>某个安装程序或其他工具重写了 PATH。请把它加回去：{command}  （{history} 会显示向导做过的更改。）</translation>
    </message>
    <message>
        <source>Install it from PyPI instead of PyTorch&apos;s index: {command}</source>
        <translation>请改为从 PyPI 而不是 PyTorch 的索引安装：{command}</translation>
    </message>
    <message>
        <source>WSL 2 gets the GPU from the Windows NVIDIA driver; its nvidia-smi is /usr/lib/wsl/lib/nvidia-smi. Check with &apos;which nvidia-smi&apos; and &apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos;; remove those packages (for example &apos;sudo apt remove --purge nvidia-driver-550 nvidia-utils-550&apos;), keeping nvidia-container-toolkit, then run &apos;wsl --shutdown&apos; in Windows and open WSL again. Take the CUDA toolkit from NVIDIA&apos;s WSL-Ubuntu repository, or from the Ubuntu one only as &apos;cuda-toolkit-12-x&apos; (not &apos;cuda&apos; or &apos;cuda-drivers&apos;, which bring a Linux driver). If nothing was installed, update the NVIDIA driver on Windows; data-center GPUs in TCC mode are not available to WSL. If WSL was opened from a terminal run as administrator, open it from a normal one: people found the GPU unreachable only there (microsoft/WSL#9099, #9640).</source>
        <translation>WSL 2 通过 Windows NVIDIA 驱动获得 GPU；其 nvidia-smi 为 /usr/lib/wsl/lib/nvidia-smi。请用 &apos;which nvidia-smi&apos; 和 &apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos; 检查；删除这些软件包（例如 &apos;sudo apt remove --purge nvidia-driver-550 nvidia-utils-550&apos;），但保留 nvidia-container-toolkit，然后在 Windows 中运行 &apos;wsl --shutdown&apos; 并重新打开 WSL。请从 NVIDIA 的 WSL-Ubuntu 软件源获取 CUDA toolkit，或者仅以 &apos;cuda-toolkit-12-x&apos; 的形式从 Ubuntu 软件源获取（不要用 &apos;cuda&apos; 或 &apos;cuda-drivers&apos;，它们会带入 Linux 驱动）。如果没有安装过这些软件包，请更新 Windows 上的 NVIDIA 驱动；处于 TCC 模式的数据中心 GPU 无法在 WSL 中使用。 如果是从以管理员身份运行的终端打开的 WSL，请改从普通终端打开：有人发现只有在那种情况下才无法访问 GPU（microsoft/WSL#9099、#9640）。</translation>
    </message>
    <message>
        <source>A plain &apos;pip install jax&apos; is the CPU build. Install the CUDA build into this environment: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; (&apos;jax[cuda13]&apos; instead when nvidia-smi shows CUDA 13.0 or newer); it brings the CUDA plugin and NVIDIA&apos;s CUDA and cuDNN wheels. JAX supports NVIDIA GPUs on Linux and (experimentally) in WSL 2, not on native Windows. Then check: python -c &quot;import jax; print(jax.devices())&quot; must list a CudaDevice.</source>
        <translation>单纯的 &apos;pip install jax&apos; 安装的是 CPU 版本。请在此环境中安装 CUDA 版本：&apos;pip install -U &quot;jax[cuda12]&quot;&apos;（当 nvidia-smi 显示 CUDA 13.0 或更新版本时改用 &apos;jax[cuda13]&apos;）；它会一并安装 CUDA 插件以及 NVIDIA 的 CUDA 和 cuDNN wheel 包。JAX 在 Linux 上以及（实验性地）在 WSL 2 中支持 NVIDIA GPU，不支持原生 Windows。然后检查：python -c &quot;import jax; print(jax.devices())&quot; 的输出中必须列出 CudaDevice。</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA backend failed to start, so JAX cannot use the GPU (it runs on the CPU).</source>
        <translation>JAX 的 CUDA 后端启动失败，因此 JAX 无法使用 GPU（它在 CPU 上运行）。</translation>
    </message>
    <message>
        <source>The line after &apos;CUDA backend failed to initialize&apos; says why. Reinstall JAX with its CUDA wheels in one command, so that jax, jaxlib, the CUDA plugin and NVIDIA&apos;s libraries match: &apos;pip install -U &quot;jax[cuda12]&quot;&apos;. Unset LD_LIBRARY_PATH for this environment: JAX&apos;s install guide warns that it overrides the CUDA libraries of the wheels. If PyTorch or TensorFlow in the same environment pins other NVIDIA wheels, give JAX its own environment.</source>
        <translation>&apos;CUDA backend failed to initialize&apos; 之后的那一行说明了原因。请用一条命令重新安装 JAX 及其 CUDA wheel 包，使 jax、jaxlib、CUDA 插件和 NVIDIA 的库相互匹配：&apos;pip install -U &quot;jax[cuda12]&quot;&apos;。在此环境中取消设置 LD_LIBRARY_PATH：JAX 的安装指南警告它会覆盖 wheel 包中的 CUDA 库。如果同一环境中的 PyTorch 或 TensorFlow 固定了其他版本的 NVIDIA wheel 包，请为 JAX 单独创建一个环境。</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA backend did not start: this JAX needs cuDNN {built} or newer, but found cuDNN {found}. JAX runs on the CPU.</source>
        <translation>JAX 的 CUDA 后端未启动：此 JAX 需要 cuDNN {built} 或更新版本，但找到的是 cuDNN {found}。JAX 在 CPU 上运行。</translation>
    </message>
    <message>
        <source>JAX loads the first cuDNN on the library search path. With &apos;jax[cuda12]&apos; the right one is the nvidia-cudnn-cu12 wheel: upgrade it (&apos;pip install -U &quot;jax[cuda12]&quot;&apos;, or &apos;pip install -U &quot;nvidia-cudnn-cu12&gt;={built}&quot;&apos;), and unset LD_LIBRARY_PATH (or remove the system or conda cuDNN folder from it) so that the wheel&apos;s copy is found first. If PyTorch in the same environment pins an older nvidia-cudnn-cu12, keep JAX and PyTorch in separate environments, or choose releases that agree on cuDNN. With a local CUDA (&apos;jax[cuda12_local]&apos;, conda), install cuDNN {built} or newer.</source>
        <translation>JAX 会加载库搜索路径上找到的第一个 cuDNN。使用 &apos;jax[cuda12]&apos; 时，正确的 cuDNN 是 nvidia-cudnn-cu12 wheel 包：请升级它（&apos;pip install -U &quot;jax[cuda12]&quot;&apos;，或 &apos;pip install -U &quot;nvidia-cudnn-cu12&gt;={built}&quot;&apos;），并取消设置 LD_LIBRARY_PATH（或从中移除系统或 conda 的 cuDNN 文件夹），以便优先找到 wheel 包中的副本。如果同一环境中的 PyTorch 固定了较旧的 nvidia-cudnn-cu12，请将 JAX 和 PyTorch 放在不同的环境中，或选择 cuDNN 要求一致的版本。使用本地 CUDA（&apos;jax[cuda12_local]&apos;、conda）时，请安装 cuDNN {built} 或更新版本。</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA backend did not start: this JAX needs {component} {built} or newer, but found {component} {found}. JAX runs on the CPU.</source>
        <translation>JAX 的 CUDA 后端未启动：此 JAX 需要 {component} {built} 或更新版本，但找到的是 {component} {found}。JAX 在 CPU 上运行。</translation>
    </message>
    <message>
        <source>An older CUDA library than the one JAX was built with is found first, usually a CUDA toolkit on LD_LIBRARY_PATH (such as /usr/local/cuda in a notebook image) instead of the nvidia-* wheels &apos;jax[cuda12]&apos; installs. Run &apos;pip install -U &quot;jax[cuda12]&quot;&apos; and unset LD_LIBRARY_PATH for this environment, as JAX&apos;s install guide advises. With a local CUDA (&apos;jax[cuda12_local]&apos;), install a CUDA toolkit whose {component} is {built} or newer, or a JAX release built for the CUDA you have.</source>
        <translation>系统先找到了比 JAX 构建时所用版本更旧的 CUDA 库，通常是 LD_LIBRARY_PATH 上的 CUDA 工具包（例如 notebook 镜像中的 /usr/local/cuda），而不是 &apos;jax[cuda12]&apos; 安装的 nvidia-* wheel 包。请运行 &apos;pip install -U &quot;jax[cuda12]&quot;&apos;，并按照 JAX 安装指南的建议，在此环境中取消设置 LD_LIBRARY_PATH。如果使用本地 CUDA（&apos;jax[cuda12_local]&apos;），请安装 {component} 为 {built} 或更新版本的 CUDA 工具包，或安装为您现有 CUDA 构建的 JAX 版本。</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA plugin does not fit the installed jaxlib (PJRT API {plugin_api} against {framework_api}), so JAX cannot use the GPU.</source>
        <translation>JAX 的 CUDA 插件与已安装的 jaxlib 不匹配（PJRT API {plugin_api} 与 {framework_api}），因此 JAX 无法使用 GPU。</translation>
    </message>
    <message>
        <source>jax, jaxlib, jax-cuda12-plugin and jax-cuda12-pjrt must all come from the same release. Reinstall them together from PyPI: &apos;pip uninstall -y jax jaxlib jax-cuda12-plugin jax-cuda12-pjrt&apos;, then &apos;pip install -U &quot;jax[cuda12]&quot;&apos; (or one pinned version for all: &apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos;). Do not mix a jaxlib from another index with the plugin from PyPI.</source>
        <translation>jax、jaxlib、jax-cuda12-plugin 和 jax-cuda12-pjrt 必须来自同一版本。请从 PyPI 一起重新安装它们：先运行 &apos;pip uninstall -y jax jaxlib jax-cuda12-plugin jax-cuda12-pjrt&apos;，再运行 &apos;pip install -U &quot;jax[cuda12]&quot;&apos;（或为所有包固定同一版本：&apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos;）。不要将来自其他索引的 jaxlib 与来自 PyPI 的插件混用。</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA plugin is from another release than jax and jaxlib and failed to start ({plugin_error}), so JAX cannot use the GPU.</source>
        <translation>JAX 的 CUDA 插件与 jax 和 jaxlib 来自不同版本，且启动失败（{plugin_error}），因此 JAX 无法使用 GPU。</translation>
    </message>
    <message>
        <source>jax, jaxlib, jax-cuda12-plugin and jax-cuda12-pjrt must all come from the same release; an upgrade of one of them (or an old plugin left behind) breaks the others. Install them together at one version: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; for the newest, or &apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos; with the jax version your project needs (&apos;pip show jax&apos; prints it); &apos;pip list | grep jax&apos; must then show one version for all four.</source>
        <translation>jax、jaxlib、jax-cuda12-plugin 和 jax-cuda12-pjrt 必须来自同一版本；单独升级其中一个（或遗留下来的旧插件）会导致其他包无法工作。请以同一版本一起安装它们：用 &apos;pip install -U &quot;jax[cuda12]&quot;&apos; 安装最新版本，或用 &apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos; 安装你的项目所需的 jax 版本（&apos;pip show jax&apos; 会显示该版本）；之后 &apos;pip list | grep jax&apos; 必须显示这四个包为同一版本。</translation>
    </message>
    <message>
        <source>jaxlib {jaxlib} does not fit jax {jax}, so JAX does not start at all.</source>
        <translation>jaxlib {jaxlib} 与 jax {jax} 不匹配，因此 JAX 完全无法启动。</translation>
    </message>
    <message>
        <source>jax and jaxlib must come from the same release. Install them in one command so pip picks versions that fit: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; on Linux with an NVIDIA GPU, &apos;pip install -U jax&apos; for the CPU. If a project needs jax {jax}, install the jaxlib of that same release instead of the newer {jaxlib}.</source>
        <translation>jax 和 jaxlib 必须来自同一版本。请用一条命令安装它们，让 pip 选择相互匹配的版本：在带 NVIDIA GPU 的 Linux 上使用 &apos;pip install -U &quot;jax[cuda12]&quot;&apos;，CPU 版本使用 &apos;pip install -U jax&apos;。如果项目需要 jax {jax}，请安装同一版本的 jaxlib，而不是较新的 {jaxlib}。</translation>
    </message>
    <message>
        <source>JAX could not load cuDNN (&apos;Unable to load cuDNN. Is it installed?&apos;), so its CUDA backend did not start and JAX runs on the CPU.</source>
        <translation>JAX 无法加载 cuDNN（&apos;Unable to load cuDNN. Is it installed?&apos;），因此其 CUDA 后端未启动，JAX 在 CPU 上运行。</translation>
    </message>
    <message>
        <source>With &apos;jax[cuda12]&apos; cuDNN comes as the nvidia-cudnn-cu12 wheel. Usually another cuDNN is found first, or the wheel is missing or too old: unset LD_LIBRARY_PATH (JAX&apos;s install guide, https://docs.jax.dev/en/latest/installation.html: with the pip CUDA wheels it must not point to other CUDA libraries), then run &apos;pip install -U &quot;jax[cuda12]&quot;&apos; again. If PyTorch or TensorFlow in the same environment pinned an older nvidia-cudnn-cu12 (cuDNN 8), current JAX needs cuDNN 9: give JAX its own environment. With a local CUDA (&apos;jax[cuda12_local]&apos;), install cuDNN 9 for CUDA 12 and put its lib folder on LD_LIBRARY_PATH.</source>
        <translation>使用 &apos;jax[cuda12]&apos; 时，cuDNN 以 nvidia-cudnn-cu12 wheel 包的形式提供。通常是优先找到了另一个 cuDNN，或者该 wheel 包缺失或版本过旧：请取消设置 LD_LIBRARY_PATH（JAX 的安装指南 https://docs.jax.dev/en/latest/installation.html 指出：使用 pip 安装的 CUDA wheel 包时，它不得指向其他 CUDA 库），然后重新运行 &apos;pip install -U &quot;jax[cuda12]&quot;&apos;。如果同一环境中的 PyTorch 或 TensorFlow 固定了较旧的 nvidia-cudnn-cu12（cuDNN 8），而当前的 JAX 需要 cuDNN 9：请为 JAX 单独创建一个环境。使用本地 CUDA（&apos;jax[cuda12_local]&apos;）时，请安装适用于 CUDA 12 的 cuDNN 9，并将其 lib 文件夹加入 LD_LIBRARY_PATH。</translation>
    </message>
    <message>
        <source>ONNX Runtime could not start its CUDA provider and runs on the CPU (&apos;Failed to create CUDAExecutionProvider&apos;).</source>
        <translation>ONNX Runtime 无法启动其 CUDA 执行提供程序，因此在 CPU 上运行（&apos;Failed to create CUDAExecutionProvider&apos;）。</translation>
    </message>
    <message>
        <source>onnxruntime-gpu needs the CUDA and cuDNN major versions it was built for (listed per release at https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements; since 1.19 the PyPI package is built for CUDA 12 and cuDNN 9, before it for CUDA 11 and cuDNN 8; recent releases name them in this warning). Install them as wheels into this environment: &apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, or, with PyTorch installed, call &apos;onnxruntime.preload_dlls()&apos; before creating the session. Keep only one of &apos;onnxruntime&apos; and &apos;onnxruntime-gpu&apos; installed.</source>
        <translation>onnxruntime-gpu 需要其构建时所针对的 CUDA 和 cuDNN 主版本（各版本的要求列于 https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements ；自 1.19 起，PyPI 上的包为 CUDA 12 和 cuDNN 9 构建，此前为 CUDA 11 和 cuDNN 8；较新的版本会在此警告中指明所需版本）。请将它们以 wheel 包形式安装到此环境中：&apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;；或者，如果已安装 PyTorch，在创建会话之前调用 &apos;onnxruntime.preload_dlls()&apos;。&apos;onnxruntime&apos; 和 &apos;onnxruntime-gpu&apos; 只能保留其中一个。</translation>
    </message>
    <message>
        <source>ONNX Runtime could not start its CUDA provider and runs on the CPU: this onnxruntime-gpu needs CUDA {cuda}.x and cuDNN {cudnn}.x, and could not load them.</source>
        <translation>ONNX Runtime 无法启动其 CUDA 执行提供程序，因此在 CPU 上运行：此 onnxruntime-gpu 需要 CUDA {cuda}.x 和 cuDNN {cudnn}.x，但无法加载它们。</translation>
    </message>
    <message>
        <source>Give it CUDA {cuda} and cuDNN {cudnn} libraries: install them as wheels into this environment (&apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, which brings NVIDIA&apos;s CUDA and cuDNN wheels), or, with a PyTorch built for CUDA {cuda} and cuDNN {cudnn} in the same environment, call &apos;onnxruntime.preload_dlls()&apos; before creating the session. A CUDA toolkit or cuDNN installed separately must be of exactly these major versions, with their bin folders on PATH (Windows) or lib folders on LD_LIBRARY_PATH (Linux). On Windows, also install the latest Microsoft Visual C++ Redistributable (x64). Another major version (cuDNN 8 for a cuDNN 9 build) does not work: then install the onnxruntime-gpu release built for what you have.</source>
        <translation>请为它提供 CUDA {cuda} 和 cuDNN {cudnn} 的库：将它们以 wheel 包形式安装到此环境中（&apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;，会一并安装 NVIDIA 的 CUDA 和 cuDNN wheel 包）；或者，如果同一环境中有为 CUDA {cuda} 和 cuDNN {cudnn} 构建的 PyTorch，在创建会话之前调用 &apos;onnxruntime.preload_dlls()&apos;。单独安装的 CUDA toolkit 或 cuDNN 必须正好是这些主版本，并将其 bin 文件夹加入 PATH（Windows）或将 lib 文件夹加入 LD_LIBRARY_PATH（Linux）。在 Windows 上，还需安装最新的 Microsoft Visual C++ Redistributable (x64)。其他主版本（例如为 cuDNN 9 构建的版本搭配 cuDNN 8）无法工作：此时请安装为你现有版本构建的 onnxruntime-gpu。</translation>
    </message>
    <message>
        <source>ONNX Runtime could not start its CUDA provider and runs on the CPU: {missing}, which it needs, could not be loaded.</source>
        <translation>ONNX Runtime 无法启动其 CUDA 执行提供程序，因此在 CPU 上运行：无法加载它所需的 {missing}。</translation>
    </message>
    <message>
        <source>The library&apos;s name tells the CUDA or cuDNN major version this onnxruntime-gpu was built for (&apos;.so.11&apos; or &apos;64_11.dll&apos; is CUDA 11, &apos;cudnn64_9&apos; is cuDNN 9). If that is not the CUDA you have, install the onnxruntime-gpu built for yours (since 1.19 the PyPI package is built for CUDA 12 and cuDNN 9: &apos;pip install -U onnxruntime-gpu&apos;). Then give it the libraries as wheels: &apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, or, with a matching PyTorch in the environment, call &apos;onnxruntime.preload_dlls()&apos; before creating the session.</source>
        <translation>库的名称表明了此 onnxruntime-gpu 构建时所针对的 CUDA 或 cuDNN 主版本（&apos;.so.11&apos; 或 &apos;64_11.dll&apos; 表示 CUDA 11，&apos;cudnn64_9&apos; 表示 cuDNN 9）。如果这不是你现有的 CUDA 版本，请安装为你的版本构建的 onnxruntime-gpu（自 1.19 起，PyPI 上的包为 CUDA 12 和 cuDNN 9 构建：&apos;pip install -U onnxruntime-gpu&apos;）。然后以 wheel 包形式为它提供这些库：&apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;；或者，如果环境中有匹配的 PyTorch，在创建会话之前调用 &apos;onnxruntime.preload_dlls()&apos;。</translation>
    </message>
    <message>
        <source>The installed ONNX Runtime has no CUDA provider (available: {available}), so it runs on the CPU: this is the CPU-only &apos;onnxruntime&apos; package.</source>
        <translation>已安装的 ONNX Runtime 没有 CUDA 执行提供程序（可用的有：{available}），因此在 CPU 上运行：这是仅支持 CPU 的 &apos;onnxruntime&apos; 包。</translation>
    </message>
    <message>
        <source>&apos;onnxruntime&apos; and &apos;onnxruntime-gpu&apos; install the same &apos;onnxruntime&apos; module, and the one installed last wins; packages that require &apos;onnxruntime&apos; often bring the CPU one back. Remove both and install only the GPU package: &apos;pip uninstall -y onnxruntime onnxruntime-gpu&apos;, then &apos;pip install onnxruntime-gpu&apos;. Check with python -c &quot;import onnxruntime; print(onnxruntime.get_available_providers())&quot;, which must list CUDAExecutionProvider.</source>
        <translation>&apos;onnxruntime&apos; 和 &apos;onnxruntime-gpu&apos; 安装的是同一个 &apos;onnxruntime&apos; 模块，最后安装的那个会生效；依赖 &apos;onnxruntime&apos; 的包常常会把 CPU 版重新装回来。请将两者都卸载，只安装 GPU 包：先运行 &apos;pip uninstall -y onnxruntime onnxruntime-gpu&apos;，再运行 &apos;pip install onnxruntime-gpu&apos;。用 python -c &quot;import onnxruntime; print(onnxruntime.get_available_providers())&quot; 检查，输出中必须包含 CUDAExecutionProvider。</translation>
    </message>
    <message>
        <source>{library} was loaded with an incompatible copy of a CUDA library it depends on (undefined symbol {symbol}): two CUDA installations are mixed in this process.</source>
        <translation>{library} 加载时使用了其所依赖的某个 CUDA 库的不兼容副本（undefined symbol {symbol}）：此进程中混用了两套 CUDA 安装。</translation>
    </message>
    <message>
        <source>{library} needs nvJitLink {needed} or newer, but an older libnvJitLink.so.12 was loaded first, so the framework (usually &apos;import torch&apos;) fails.</source>
        <translation>{library} 需要 nvJitLink {needed} 或更新版本，但系统先加载了较旧的 libnvJitLink.so.12，因此框架（通常是 &apos;import torch&apos;）失败。</translation>
    </message>
    <message>
        <source>The older libnvJitLink usually comes from a CUDA toolkit on LD_LIBRARY_PATH (such as /usr/local/cuda-12.1/lib64), found before the nvidia-nvjitlink-cu12 wheel that came with the framework. Unset LD_LIBRARY_PATH, or remove the toolkit&apos;s folder from it, for this environment. If the wheel itself is too old, upgrade it: &apos;pip install -U &quot;nvidia-nvjitlink-cu12&gt;={needed}&quot;&apos;.</source>
        <translation>较旧的 libnvJitLink 通常来自 LD_LIBRARY_PATH 上的 CUDA toolkit（例如 /usr/local/cuda-12.1/lib64），它先于框架附带的 nvidia-nvjitlink-cu12 wheel 包被找到。请在此环境中取消设置 LD_LIBRARY_PATH，或从中移除该 toolkit 的文件夹。如果 wheel 包本身版本过旧，请升级它：&apos;pip install -U &quot;nvidia-nvjitlink-cu12&gt;={needed}&quot;&apos;。</translation>
    </message>
    <message>
        <source>{library} was loaded with parts of another cuDNN (undefined symbol {symbol}): two cuDNN installations are mixed in this process.</source>
        <translation>{library} 加载时混入了另一套 cuDNN 的组件（undefined symbol {symbol}）：此进程中混用了两套 cuDNN 安装。</translation>
    </message>
    <message>
        <source>cuDNN&apos;s libraries must all come from one release. A system cuDNN (the libcudnn packages in /usr/lib/x86_64-linux-gnu) or a conda cuDNN is mixed with the nvidia-cudnn wheel the framework installed. Unset LD_LIBRARY_PATH, or remove the other cuDNN&apos;s folder from it, for this environment; or remove the other cuDNN (&apos;sudo apt remove libcudnn8&apos;, &apos;conda remove cudnn&apos;) if nothing else needs it. PyTorch and TensorFlow that need different cuDNN versions belong in separate environments.</source>
        <translation>cuDNN 的所有库必须来自同一版本。系统 cuDNN（/usr/lib/x86_64-linux-gnu 中的 libcudnn 包）或 conda 的 cuDNN 与框架安装的 nvidia-cudnn wheel 包混用了。请在此环境中取消设置 LD_LIBRARY_PATH，或从中移除另一套 cuDNN 的文件夹；如果没有其他程序需要另一套 cuDNN，也可以将其卸载（&apos;sudo apt remove libcudnn8&apos;、&apos;conda remove cudnn&apos;）。需要不同 cuDNN 版本的 PyTorch 和 TensorFlow 应放在不同的环境中。</translation>
    </message>
    <message>
        <source>{library} could not be loaded: a function it needs is missing ([WinError 127]), because another copy of a CUDA or cuDNN DLL was loaded first.</source>
        <translation>无法加载 {library}：缺少它所需的某个函数（[WinError 127]），原因是先加载了另一个 CUDA 或 cuDNN DLL 副本。</translation>
    </message>
    <message>
        <source>The framework brings its own CUDA and cuDNN DLLs (PyTorch in torch\lib, others as nvidia-* wheels in site-packages\nvidia); a CUDA toolkit&apos;s or cuDNN&apos;s bin folder on PATH, or cuDNN DLLs copied into C:\Windows\System32, can be found first. Remove those folders from PATH (at least for this environment), delete cuDNN DLLs copied into System32, and start a new terminal. If a toolkit must stay, it must be the same CUDA and cuDNN release as the framework&apos;s. Frameworks that need different cuDNN versions (PyTorch and Paddle or ONNX Runtime) belong in separate environments.</source>
        <translation>框架自带 CUDA 和 cuDNN DLL（PyTorch 位于 torch\lib，其他框架以 nvidia-* wheel 包的形式位于 site-packages\nvidia）；PATH 上的 CUDA toolkit 或 cuDNN 的 bin 文件夹，或复制到 C:\Windows\System32 中的 cuDNN DLL，可能会被优先找到。请从 PATH 中移除这些文件夹（至少在此环境中），删除复制到 System32 中的 cuDNN DLL，然后打开一个新的终端。如果必须保留某个 toolkit，它必须与框架使用相同的 CUDA 和 cuDNN 版本。需要不同 cuDNN 版本的框架（PyTorch 与 Paddle 或 ONNX Runtime）应放在不同的环境中。</translation>
    </message>
    <message>
        <source>cuBLAS could not load its cuBLASLt library (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): it is missing, or another CUDA&apos;s copy was found first.</source>
        <translation>cuBLAS 无法加载其 cuBLASLt 库（&apos;Invalid handle. Cannot load symbol {symbol}&apos;）：该库缺失，或先找到了另一个 CUDA 的副本。</translation>
    </message>
    <message>
        <source>libcublas and libcublasLt must come from the same CUDA release. Look for another CUDA toolkit&apos;s folder on LD_LIBRARY_PATH (PATH on Windows) and remove it, or unset LD_LIBRARY_PATH, for this environment; then reinstall the framework so that its nvidia-cublas wheel is complete (&apos;pip install --force-reinstall nvidia-cublas-cu12&apos; for CUDA 12). A toolkit installed by hand must match the CUDA of the framework build.</source>
        <translation>libcublas 和 libcublasLt 必须来自同一 CUDA 版本。请在 LD_LIBRARY_PATH（Windows 上为 PATH）中查找其他 CUDA toolkit 的文件夹并将其移除，或在此环境中取消设置 LD_LIBRARY_PATH；然后重新安装框架，使其 nvidia-cublas wheel 包完整（对于 CUDA 12：&apos;pip install --force-reinstall nvidia-cublas-cu12&apos;）。手动安装的 toolkit 必须与框架构建版本的 CUDA 相匹配。</translation>
    </message>
    <message>
        <source>The loaded {library} is older than the framework knows: it lacks the optional function {symbol}, and the framework goes on without it.</source>
        <translation>加载的 {library} 比框架所知的版本更旧：它缺少可选函数 {symbol}，框架将在没有该函数的情况下继续运行。</translation>
    </message>
    <message>
        <source>This does not stop GPU work. It shows that a CUDA toolkit&apos;s library (on PATH or LD_LIBRARY_PATH) is used instead of the newer one the framework could bring; if other CUDA errors follow, remove that toolkit&apos;s folder from the search path for this environment, or install the framework build for the CUDA you have.</source>
        <translation>这不会妨碍 GPU 运算。它表明使用的是 CUDA toolkit 的库（位于 PATH 或 LD_LIBRARY_PATH 上），而不是框架本可提供的较新版本；如果随后出现其他 CUDA 错误，请在此环境中从搜索路径中移除该 toolkit 的文件夹，或安装为你现有 CUDA 构建的框架版本。</translation>
    </message>
    <message>
        <source>bitsandbytes could not load its CUDA library and fell back to its CPU library: 8-bit and 4-bit quantisation on the GPU are not available.</source>
        <translation>bitsandbytes 无法加载其 CUDA 库，已回退到 CPU 库：GPU 上的 8 位和 4 位量化不可用。</translation>
    </message>
    <message>
        <source>Install the released wheel, which carries the CUDA libraries: &apos;pip install -U bitsandbytes&apos; (not a source checkout, which has none until it is compiled). It loads the library for torch&apos;s CUDA version: check that torch is a CUDA build (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; must not print None) and run &apos;python -m bitsandbytes&apos; to see what it finds.</source>
        <translation>请安装已发布的 wheel 包，其中包含 CUDA 库：&apos;pip install -U bitsandbytes&apos;（不要使用源码检出，源码在编译之前不包含这些库）。它会加载与 torch 的 CUDA 版本对应的库：请确认 torch 是 CUDA 构建版本（&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; 的输出不能是 None），并运行 &apos;python -m bitsandbytes&apos; 查看它找到了什么。</translation>
    </message>
    <message>
        <source>bitsandbytes has no library for CUDA {cuda} (libbitsandbytes_cuda*.so is not in {folder}), so it fell back to its CPU library.</source>
        <translation>bitsandbytes 没有适用于 CUDA {cuda} 的库（{folder} 中没有 libbitsandbytes_cuda*.so），因此已回退到 CPU 库。</translation>
    </message>
    <message>
        <source>If {folder} is not in site-packages, bitsandbytes is imported from a source checkout that was never compiled: run the program from another folder and install the released wheel, which carries the CUDA libraries (&apos;pip install -U bitsandbytes&apos;), or compile the checkout (&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;, then &apos;pip install .&apos;). bitsandbytes picks the library of torch&apos;s CUDA version; if the wheel has none for CUDA {cuda}, install torch for a CUDA it supports, or update bitsandbytes.</source>
        <translation>如果 {folder} 不在 site-packages 中，说明 bitsandbytes 是从一个从未编译过的源码检出中导入的：请从其他文件夹运行程序，并安装包含 CUDA 库的已发布 wheel 包（&apos;pip install -U bitsandbytes&apos;），或编译该源码检出（&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;，然后 &apos;pip install .&apos;）。bitsandbytes 会选择与 torch 的 CUDA 版本对应的库；如果 wheel 包中没有适用于 CUDA {cuda} 的库，请安装适用于其支持的 CUDA 版本的 torch，或更新 bitsandbytes。</translation>
    </message>
    <message>
        <source>bitsandbytes looked for a library for CUDA {cuda} because BNB_CUDA_VERSION={override} is set, found none in {folder}, and fell back to its CPU library.</source>
        <translation>由于设置了 BNB_CUDA_VERSION={override}，bitsandbytes 查找了适用于 CUDA {cuda} 的库，但在 {folder} 中未找到，已回退到 CPU 库。</translation>
    </message>
    <message>
        <source>Unset BNB_CUDA_VERSION (&apos;unset BNB_CUDA_VERSION&apos;, or &apos;export BNB_CUDA_VERSION=&apos;) so that bitsandbytes loads the library of torch&apos;s own CUDA version; set it only when a library for that CUDA exists. If {folder} is not in site-packages, bitsandbytes is imported from a source checkout that was never compiled: install the released wheel (&apos;pip install -U bitsandbytes&apos;, run from another folder) or compile the checkout (&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;).</source>
        <translation>请取消设置 BNB_CUDA_VERSION（&apos;unset BNB_CUDA_VERSION&apos; 或 &apos;export BNB_CUDA_VERSION=&apos;），使 bitsandbytes 加载与 torch 自身 CUDA 版本对应的库；仅当存在适用于该 CUDA 的库时才设置它。如果 {folder} 不在 site-packages 中，说明 bitsandbytes 是从一个从未编译过的源码检出中导入的：请安装已发布的 wheel 包（&apos;pip install -U bitsandbytes&apos;，在其他文件夹中运行）或编译该源码检出（&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;）。</translation>
    </message>
    <message>
        <source>The web UI&apos;s start-up check failed: the torch in its venv cannot use the GPU (&apos;Torch is not able to use GPU&apos;).</source>
        <translation>Web UI 的启动检查失败：其 venv 中的 torch 无法使用 GPU（&apos;Torch is not able to use GPU&apos;）。</translation>
    </message>
    <message>
        <source>Check with the web UI&apos;s own Python (venv/bin/python, or venv\Scripts\python.exe): &apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())&quot;&apos;. A version ending in &apos;+cpu&apos; or CUDA None is a CPU build: delete the venv folder and start again, or install torch with CUDA into it (&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/cu126&apos;). If &apos;nvidia-smi&apos; fails, install or repair the NVIDIA driver first. Adding --skip-torch-cuda-test only runs everything on the CPU.</source>
        <translation>请使用 Web UI 自己的 Python（venv/bin/python 或 venv\Scripts\python.exe）检查：&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())&quot;&apos;。版本号以 &apos;+cpu&apos; 结尾或 CUDA 为 None 表示这是 CPU 构建版本：请删除 venv 文件夹并重新开始，或在其中安装带 CUDA 的 torch（&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/cu126&apos;）。如果 &apos;nvidia-smi&apos; 运行失败，请先安装或修复 NVIDIA 驱动。添加 --skip-torch-cuda-test 只会让所有内容在 CPU 上运行。</translation>
    </message>
    <message>
        <source>The web UI&apos;s GPU check ran during &apos;docker build&apos;, where there is no GPU (&apos;Torch is not able to use GPU&apos;).</source>
        <translation>Web UI 的 GPU 检查是在 &apos;docker build&apos; 期间运行的，而此时没有 GPU（&apos;Torch is not able to use GPU&apos;）。</translation>
    </message>
    <message>
        <source>A build step never gets a GPU: only a running container does, with &apos;docker run --gpus all&apos; (or compose&apos;s GPU reservation) and the NVIDIA Container Toolkit on the host. Add --skip-torch-cuda-test to the command the Dockerfile runs at build time (for example in COMMANDLINE_ARGS of that RUN step), and let the check happen when the container starts with --gpus all.</source>
        <translation>构建步骤永远不会获得 GPU：只有运行中的容器才能获得，需要使用 &apos;docker run --gpus all&apos;（或 compose 的 GPU 预留），并在宿主机上安装 NVIDIA Container Toolkit。请在 Dockerfile 构建时运行的命令中添加 --skip-torch-cuda-test（例如在该 RUN 步骤的 COMMANDLINE_ARGS 中），让检查在容器以 --gpus all 启动时进行。</translation>
    </message>
    <message>
        <source>The web UI&apos;s torch cannot use the GPU (&apos;Torch is not able to use GPU&apos;), and the log names an AMD GPU: only torch&apos;s ROCm build (Linux) can use it, and only on a GPU that ROCm release supports.</source>
        <translation>Web UI 的 torch 无法使用 GPU（&apos;Torch is not able to use GPU&apos;），且日志中显示的是 AMD GPU：只有 torch 的 ROCm 构建版本（Linux）才能使用它，而且仅限该 ROCm 版本支持的 GPU。</translation>
    </message>
    <message>
        <source>On Linux, install torch&apos;s ROCm build into the web UI&apos;s venv as its wiki page &apos;Install and Run on AMD GPUs&apos; says, for example TORCH_COMMAND=&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/rocm6.2&apos; (delete the venv folder first), and check a GPU your ROCm release supports. On Windows there is no ROCm build of torch for the web UI: use the AMD fork with DirectML or ZLUDA (lshqqytiger/stable-diffusion-webui-amdgpu). --skip-torch-cuda-test only runs on the CPU.</source>
        <translation>在 Linux 上，请按照 Web UI 的 wiki 页面 &apos;Install and Run on AMD GPUs&apos; 的说明，将 torch 的 ROCm 构建版本安装到 Web UI 的 venv 中，例如 TORCH_COMMAND=&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/rocm6.2&apos;（请先删除 venv 文件夹），并确认你的 ROCm 版本支持该 GPU。在 Windows 上，没有可供 Web UI 使用的 torch ROCm 构建版本：请使用支持 DirectML 或 ZLUDA 的 AMD 分支（lshqqytiger/stable-diffusion-webui-amdgpu）。--skip-torch-cuda-test 只会在 CPU 上运行。</translation>
    </message>
    <message>
        <source>cuBLAS refused a matrix operation on this GPU (CUBLAS_STATUS_NOT_SUPPORTED).</source>
        <translation>cuBLAS 拒绝在此 GPU 上执行矩阵运算（CUBLAS_STATUS_NOT_SUPPORTED）。</translation>
    </message>
    <message>
        <source>The cuBLAS of this build is too old for the GPU or for the operation: install a framework build for a CUDA that knows the GPU (an RTX 40-series GPU, Ada, needs CUDA 11.8 or newer, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;; an RTX 50-series GPU needs CUDA 12.8 or newer, cu128) and a driver for it. Old Docker images with CUDA 11.7 or older cannot work on such GPUs.</source>
        <translation>此构建版本中的 cuBLAS 对该 GPU 或该运算而言过旧：请安装适用于支持该 GPU 的 CUDA 版本的框架构建版本（RTX 40 系列 GPU，即 Ada 架构，需要 CUDA 11.8 或更高版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;；RTX 50 系列 GPU 需要 CUDA 12.8 或更高版本，即 cu128）以及相应的驱动。使用 CUDA 11.7 或更早版本的旧 Docker 镜像无法在这类 GPU 上运行。</translation>
    </message>
    <message>
        <source>cuBLAS refused a bfloat16 matrix product (CUBLAS_STATUS_NOT_SUPPORTED with CUDA_R_16BF): this GPU or cuBLAS does not support bfloat16 there.</source>
        <translation>cuBLAS 拒绝了 bfloat16 矩阵乘法（CUBLAS_STATUS_NOT_SUPPORTED，CUDA_R_16BF）：此 GPU 或 cuBLAS 在此处不支持 bfloat16。</translation>
    </message>
    <message>
        <source>bfloat16 matrix products need a GPU of compute capability 8.0 (Ampere, RTX 30 series, A100) or newer (&apos;python -c &quot;import torch; print(torch.cuda.is_bf16_supported())&quot;&apos;). On an older GPU run the model in float16 or float32 instead: choose fp16/fp32 in the program&apos;s settings, or load it with torch_dtype=torch.float16. On a newer GPU, install a current framework build.</source>
        <translation>bfloat16 矩阵乘法需要计算能力 8.0（Ampere、RTX 30 系列、A100）或更高的 GPU（&apos;python -c &quot;import torch; print(torch.cuda.is_bf16_supported())&quot;&apos;）。在较旧的 GPU 上，请改用 float16 或 float32 运行模型：在程序设置中选择 fp16/fp32，或使用 torch_dtype=torch.float16 加载模型。在较新的 GPU 上，请安装当前的框架构建版本。</translation>
    </message>
    <message>
        <source>The compiled extension {module} was built for another PyTorch version or C++ ABI: it needs a torch C++ symbol this torch does not have (&apos;undefined symbol&apos;).</source>
        <translation>已编译的扩展 {module} 是为其他 PyTorch 版本或 C++ ABI 构建的：它需要一个当前 torch 中不存在的 torch C++ 符号（&apos;undefined symbol&apos;）。</translation>
    </message>
    <message>
        <source>Reinstall the package that contains {module} in a build for this torch: a wheel built for the same torch version, CUDA and C++ ABI (&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos;), or build it here against the installed torch with &apos;pip install --no-build-isolation --no-cache-dir --force-reinstall PACKAGE&apos;. Or install the torch version the package was built for (the one it requires). Upgrading torch after installing an extension breaks it the same way.</source>
        <translation>请重新安装包含 {module} 的包，并使用适用于当前 torch 的构建版本：即为相同 torch 版本、CUDA 和 C++ ABI 构建的 wheel 包（&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos;），或使用 &apos;pip install --no-build-isolation --no-cache-dir --force-reinstall PACKAGE&apos; 在本机针对已安装的 torch 进行构建。也可以安装该包构建时所用的 torch 版本（即它所要求的版本）。安装扩展后再升级 torch 也会以同样的方式导致其损坏。</translation>
    </message>
    <message>
        <source>flash-attn&apos;s compiled module {module} was built for another PyTorch version or C++ ABI: it needs a torch C++ symbol this torch does not have (&apos;undefined symbol&apos;).</source>
        <translation>flash-attn 的已编译模块 {module} 是为其他 PyTorch 版本或 C++ ABI 构建的：它需要一个当前 torch 中不存在的 torch C++ 符号（&apos;undefined symbol&apos;）。</translation>
    </message>
    <message>
        <source>Install the flash-attn wheel built for this torch: its release assets name the CUDA, torch version and ABI (flash_attn-VERSION+cu12torch2.6cxx11abiFALSE-...whl); pick the one matching &apos;python -c &quot;import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos; and your Python, and install it with pip. Or build it against the installed torch: &apos;pip install flash-attn --no-build-isolation --no-cache-dir --force-reinstall&apos; (needs the CUDA toolkit). Upgrading torch after installing flash-attn breaks it the same way.</source>
        <translation>请安装为当前 torch 构建的 flash-attn wheel 包：其发布附件的文件名中标明了 CUDA、torch 版本和 ABI（flash_attn-VERSION+cu12torch2.6cxx11abiFALSE-...whl）；请选择与 &apos;python -c &quot;import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos; 的输出及你的 Python 版本相匹配的文件，并用 pip 安装。也可以针对已安装的 torch 进行构建：&apos;pip install flash-attn --no-build-isolation --no-cache-dir --force-reinstall&apos;（需要 CUDA 工具包）。安装 flash-attn 后再升级 torch 也会以同样的方式导致其损坏。</translation>
    </message>
    <message>
        <source>xFormers was built for PyTorch {built} but torch {have} is installed: its CUDA kernels (memory-efficient attention) are not loaded.</source>
        <translation>xFormers 是为 PyTorch {built} 构建的，但安装的是 torch {have}：其 CUDA 内核（内存高效注意力）未被加载。</translation>
    </message>
    <message>
        <source>Install the xFormers release built for torch {have}, from the same PyTorch index as torch: &apos;pip install -U xformers --index-url https://download.pytorch.org/whl/{index}&apos; (pip may then change torch: pin it, or install both in one command). Or install the torch {built} it was built for.</source>
        <translation>请从与 torch 相同的 PyTorch 索引安装为 torch {have} 构建的 xFormers 版本：&apos;pip install -U xformers --index-url https://download.pytorch.org/whl/{index}&apos;（pip 可能因此更改 torch：请固定其版本，或在同一条命令中同时安装两者）。也可以安装它构建时所用的 torch {built}。</translation>
    </message>
    <message>
        <source>xFormers was built for PyTorch {built}, but the installed torch {have} is a CPU-only build: nothing runs on the GPU.</source>
        <translation>xFormers 是为 PyTorch {built} 构建的，但已安装的 torch {have} 是仅支持 CPU 的构建版本：没有任何内容在 GPU 上运行。</translation>
    </message>
    <message>
        <source>The problem is torch, not xFormers: uninstall torch and install its CUDA build from the PyTorch index that fits your driver, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (on Windows, torch from PyPI is CPU-only), then the xFormers release for that torch from the same index (&apos;pip install -U xformers --index-url https://download.pytorch.org/whl/cu126&apos;).</source>
        <translation>问题出在 torch，而不是 xFormers：请卸载 torch，并从适合你的驱动的 PyTorch 索引安装其 CUDA 构建版本，例如 &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;（在 Windows 上，PyPI 中的 torch 仅支持 CPU），然后从同一索引安装适用于该 torch 的 xFormers 版本（&apos;pip install -U xformers --index-url https://download.pytorch.org/whl/cu126&apos;）。</translation>
    </message>
    <message>
        <source>Install the xFormers release built for torch {have} from the same place torch came from (the PyTorch index &apos;https://download.pytorch.org/whl/cuXYZ&apos; of torch&apos;s CUDA, or PyPI, whose newest xFormers fits PyPI&apos;s newest torch), or install the torch {built} it was built for.</source>
        <translation>请从 torch 的来源处安装为 torch {have} 构建的 xFormers 版本（对应 torch 所用 CUDA 的 PyTorch 索引 &apos;https://download.pytorch.org/whl/cuXYZ&apos;，或 PyPI，其中最新的 xFormers 适配 PyPI 上最新的 torch），或安装它构建时所用的 torch {built}。</translation>
    </message>
    <message>
        <source>TensorRT cannot load the engine: it was serialised by another TensorRT version (engine tag {engine}, this TensorRT&apos;s tag {current}).</source>
        <translation>TensorRT 无法加载该引擎：它是由另一个 TensorRT 版本序列化的（引擎标签 {engine}，当前 TensorRT 的标签 {current}）。</translation>
    </message>
    <message>
        <source>A TensorRT engine runs only with the TensorRT version (and GPU model) that built it. Rebuild it here from the model with the installed TensorRT, for example &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos; (on a Jetson, on the device itself), or install the TensorRT that built it. Check that only one TensorRT is found (LD_LIBRARY_PATH, the container image&apos;s version).</source>
        <translation>TensorRT 引擎只能在构建它的 TensorRT 版本（及 GPU 型号）上运行。请在本机使用已安装的 TensorRT 从模型重新构建引擎，例如 &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos;（在 Jetson 上，需在设备本身上进行），或安装构建该引擎的 TensorRT 版本。请确认只能找到一个 TensorRT（检查 LD_LIBRARY_PATH 以及容器镜像中的版本）。</translation>
    </message>
    <message>
        <source>TensorRT {installed} cannot load the engine: it was built with TensorRT {built}.</source>
        <translation>TensorRT {installed} 无法加载该引擎：它是用 TensorRT {built} 构建的。</translation>
    </message>
    <message>
        <source>A TensorRT engine runs only with the TensorRT version (and GPU model) that built it. Rebuild it here with TensorRT {installed} from the model, for example &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos; (or the program&apos;s own export step), or install TensorRT {built}. If several TensorRT copies are installed (a Python package and a system one), make sure the same one builds and runs it.</source>
        <translation>TensorRT 引擎只能在构建它的 TensorRT 版本（及 GPU 型号）上运行。请在本机使用 TensorRT {installed} 从模型重新构建引擎，例如 &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos;（或使用程序自带的导出步骤），或安装 TensorRT {built}。如果安装了多个 TensorRT（一个 Python 包和一个系统安装的版本），请确保构建和运行使用的是同一个。</translation>
    </message>
</context>
<context>
    <name>pathedit</name>
    <message>
        <source>the folder does not exist</source>
        <extracomment>Scopes in the order Windows joins them. The translation context of the problems&apos; words (lupdate reads literal contexts only). The problem workflow/pathedit/request.py adds to the entries of a REG_SZ value with %VARS%.</extracomment>
        <translation>文件夹不存在</translation>
    </message>
    <message>
        <source>already on PATH earlier: only the first one counts</source>
        <translation>PATH 中靠前的位置已有此项：只有第一个生效</translation>
    </message>
    <message>
        <source>empty entry (an extra &apos;;&apos;)</source>
        <translation>空条目（多余的 &apos;;&apos;）</translation>
    </message>
    <message>
        <source>another CUDA version comes first</source>
        <translation>另一个 CUDA 版本排在前面</translation>
    </message>
    <message>
        <source>the value is REG_SZ, so its %VARIABLES% are never expanded</source>
        <translation>该值的类型为 REG_SZ，因此其中的 %VARIABLES% 永远不会被展开</translation>
    </message>
    <message>
        <source>CUDA {version} comes first on PATH</source>
        <translation>CUDA {version} 在 PATH 中排在最前</translation>
    </message>
</context>
<context>
    <name>plans</name>
    <message>
        <source>(CPU-only build)</source>
        <translation>（仅 CPU 版本）</translation>
    </message>
    <message>
        <source>(wheel {variant})</source>
        <translation>（wheel {variant}）</translation>
    </message>
    <message>
        <source>venv (Python virtual environment)</source>
        <translation>venv（Python 虚拟环境）</translation>
    </message>
    <message>
        <source>{environment} inside WSL 2</source>
        <translation>{environment} 在 WSL 2 中</translation>
    </message>
    <message>
        <source>No NVIDIA GPU here: {framework} will train on the CPU (slower, but it works).</source>
        <translation>本机没有 NVIDIA GPU：{framework} 将在 CPU 上训练（较慢，但可以运行）。</translation>
    </message>
    <message>
        <source>{framework} will train on the CPU only: the GPU cannot be used (the reasons are below).</source>
        <translation>{framework} 只能在 CPU 上训练：无法使用 GPU（原因见下文）。</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible after a driver update.</source>
        <translation>更新驱动程序后，即可用 {framework} 进行 GPU 训练。</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible inside WSL 2 (Linux on this Windows).</source>
        <translation>可在 WSL 2（此 Windows 上的 Linux）中用 {framework} 进行 GPU 训练。</translation>
    </message>
    <message>
        <source>{framework} can reach the GPU only through PTX compiled at first use: it may work, but no official build covers this GPU.</source>
        <translation>{framework} 只能通过首次使用时编译的 PTX 使用 GPU：可能可行，但没有官方构建覆盖这块 GPU。</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible on this machine as it is.</source>
        <translation>本机无需改动即可用 {framework} 进行 GPU 训练。</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible with the plan below, not with exactly what you picked.</source>
        <translation>可以用 {framework} 进行 GPU 训练，但需采用下方方案，而非您所选的组合。</translation>
    </message>
    <message>
        <source>CPU build</source>
        <translation>CPU 版本</translation>
    </message>
    <message>
        <source>CPU build: no CUDA, runs on the processor</source>
        <translation>CPU 版本：不含 CUDA，在处理器上运行</translation>
    </message>
    <message>
        <source>CUDA {cuda}, cuDNN {cudnn}</source>
        <translation>CUDA {cuda}，cuDNN {cudnn}</translation>
    </message>
    <message>
        <source>CUDA {cuda}</source>
        <translation>CUDA {cuda}</translation>
    </message>
    <message>
        <source>{cuda} (must be installed on the system: the wizard does not install it)</source>
        <translation>{cuda} （必须安装在系统上：向导不会安装）</translation>
    </message>
    <message>
        <source>{cuda} (NVIDIA&apos;s CUDA {runtime} and cuDNN {cudnn_runtime} wheels inside the environment: no CUDA toolkit needed)</source>
        <translation>{cuda}（环境中的 NVIDIA CUDA {runtime} 和 cuDNN {cudnn_runtime} wheel：无需 CUDA 工具包）</translation>
    </message>
    <message>
        <source>{cuda} (comes inside the environment: no CUDA toolkit needed)</source>
        <translation>{cuda} （随环境提供：无需 CUDA 工具包）</translation>
    </message>
    <message>
        <source>CUDA {cuda} build, on the CPU</source>
        <translation>CUDA {cuda} 版本,在 CPU 上运行</translation>
    </message>
    <message>
        <source>CUDA {cuda} build, running on the processor here (its NVIDIA libraries come along, unused)</source>
        <translation>CUDA {cuda} 版本,在这里于处理器上运行(其 NVIDIA 库会一并安装,但不会使用)</translation>
    </message>
    <message>
        <source>ROCm {rocm}</source>
        <translation>ROCm {rocm}</translation>
    </message>
    <message>
        <source>ROCm {rocm} (comes inside the environment: only the amdgpu kernel driver is needed)</source>
        <translation>ROCm {rocm}（随环境提供：只需 amdgpu 内核驱动程序）</translation>
    </message>
    <message>
        <source>Intel XPU build</source>
        <translation>Intel XPU 版本</translation>
    </message>
    <message>
        <source>Intel XPU build (its runtime comes inside the environment: Intel&apos;s GPU driver is needed)</source>
        <translation>Intel XPU 版本（其运行时随环境提供：需要 Intel 的 GPU 驱动程序）</translation>
    </message>
    <message>
        <source>Apple GPU (MPS)</source>
        <translation>Apple GPU（MPS）</translation>
    </message>
    <message>
        <source>Apple GPU through Metal (MPS), part of macOS: nothing else to install</source>
        <translation>通过 Metal（MPS）使用 Apple GPU，Metal 是 macOS 的一部分：无需另外安装任何软件</translation>
    </message>
    <message>
        <source>{minimum} or newer; no NVIDIA driver answers now</source>
        <translation>{minimum} 或更高版本；当前没有 NVIDIA 驱动程序响应</translation>
    </message>
    <message>
        <source>{minimum} or newer; you have {driver}: update it first</source>
        <translation>{minimum} 或更高版本；当前为 {driver}：请先更新</translation>
    </message>
    <message>
        <source>{minimum} or newer; you have {driver} (fine)</source>
        <translation>{minimum} 或更高版本；当前为 {driver}（满足要求）</translation>
    </message>
    <message>
        <source>Python {python}</source>
        <translation>Python {python}</translation>
    </message>
    <message>
        <source>conda through {engine}: {packages}</source>
        <translation>conda（通过 {engine}）：{packages}</translation>
    </message>
    <message>
        <source>CUDA from NVIDIA&apos;s wheels</source>
        <translation>来自 NVIDIA wheel 的 CUDA</translation>
    </message>
    <message>
        <source>CUDA installed on the system</source>
        <translation>系统上安装的 CUDA</translation>
    </message>
    <message>
        <source>inside WSL 2</source>
        <translation>在 WSL 2 中</translation>
    </message>
    <message>
        <source>needs a driver update</source>
        <translation>需要更新驱动程序</translation>
    </message>
    <message>
        <source>conda environment, made by py-rattler inside the wizard (no conda needed)</source>
        <translation>conda 环境，由向导内置的 py-rattler 创建（无需 conda）</translation>
    </message>
    <message>
        <source>conda environment, made by {engine}</source>
        <translation>conda 环境，由 {engine} 创建</translation>
    </message>
    <message>
        <source>{packages} from {channels}</source>
        <translation>{packages}，来自 {channels}</translation>
    </message>
    <message>
        <source>Compatibility data of {date}, bundled with the wizard.</source>
        <translation>兼容性数据日期 {date}，随向导附带。</translation>
    </message>
    <message>
        <source>Compatibility data of {date}, fetched: {origin}.</source>
        <translation>兼容性数据日期 {date}，已下载：{origin}。</translation>
    </message>
    <message>
        <source>{data} Published but not yet verified (not recommended): {versions}.</source>
        <translation>{data} 已发布但尚未验证（不推荐）：{versions}。</translation>
    </message>
    <message>
        <source>Nothing: this is a preview; below is what it would do.</source>
        <translation>无：这只是预览；下面是它将执行的操作。</translation>
    </message>
    <message>
        <source>The existing environment {name} is replaced: it is moved aside, and put back if the new one fails.</source>
        <translation>现有环境 {name} 将被替换：它会先被移到一旁，新环境创建失败时再恢复。</translation>
    </message>
    <message>
        <source>Packages come only from {folder}; nothing is downloaded.</source>
        <translation>软件包仅来自 {folder}；不会下载任何内容。</translation>
    </message>
    <message>
        <source>Packages are downloaded from {index} ({why}).</source>
        <translation>软件包从 {index} 下载（{why}）。</translation>
    </message>
    <message>
        <source>This report does not say what WSL there is: detect again on this Windows machine to see what the route needs first.</source>
        <translation>此报告未说明有哪种 WSL：请在这台 Windows 电脑上重新检测，以了解该路线需要先做什么。</translation>
    </message>
    <message>
        <source>First, on Windows, you make WSL ready (the wizard does not run these): {commands}. Then come back here.</source>
        <translation>首先，请在 Windows 上自行准备好 WSL（向导不会运行这些命令）：{commands}。然后回到这里。</translation>
    </message>
    <message>
        <source>Inside {distro}: a new folder {folder} holding a Python {python} environment with {packages}, made by uv; uv and Python {python} go in {home} too. No sudo: nothing else in the distribution changes, its own Python included.</source>
        <translation>在 {distro} 内：新文件夹 {folder}，其中是由 uv 创建的 Python {python} 环境，包含 {packages}；uv 和 Python {python} 也放在 {home} 中。无需 sudo：发行版中的其他内容都不会改变，包括它自带的 Python。</translation>
    </message>
    <message>
        <source>Downloads: uv&apos;s Linux build from PyPI (checked against the digest PyPI publishes), Python {python} by uv, and the packages from PyPI; CUDA and cuDNN come as pip packages.</source>
        <translation>下载：来自 PyPI 的 uv Linux 版本（已与 PyPI 公布的摘要核对）、由 uv 下载的 Python {python}，以及来自 PyPI 的软件包；CUDA 和 cuDNN 以 pip 软件包的形式提供。</translation>
    </message>
    <message>
        <source>Nothing in Windows: no PATH change, no CUDA toolkit; the Windows NVIDIA driver serves WSL 2.</source>
        <translation>Windows 中不做任何更改：不改 PATH，不装 CUDA toolkit；Windows 的 NVIDIA 驱动为 WSL 2 提供支持。</translation>
    </message>
    <message>
        <source>A new folder {folder} in the wizard&apos;s home folder, holding a Python {python} environment with {packages}.</source>
        <translation>向导主文件夹中的新文件夹 {folder}，其中包含装有 {packages} 的 Python {python} 环境。</translation>
    </message>
    <message>
        <source>A new folder {folder} holding a Python {python} environment with {packages}.</source>
        <translation>新文件夹 {folder}，其中包含装有 {packages} 的 Python {python} 环境。</translation>
    </message>
    <message>
        <source>A new conda environment in {folder}, made by py-rattler inside the wizard (no conda needed), with {conda_packages} from {channels}, then {packages} from pip.</source>
        <translation>在 {folder} 新建一个 conda 环境，由向导内置的 py-rattler 创建（无需 conda），装入来自 {channels} 的 {conda_packages}，然后用 pip 安装 {packages}。</translation>
    </message>
    <message>
        <source>A new conda environment {name} (in {engine}&apos;s environments folder), made by {engine}, with {conda_packages}, then {packages} from pip.</source>
        <translation>新建 conda 环境 {name}（位于 {engine} 的环境文件夹），由 {engine} 创建，装入 {conda_packages}，然后用 pip 安装 {packages}。</translation>
    </message>
    <message>
        <source>Settings that apply only while the environment is active: {settings}.</source>
        <translation>仅在环境激活时生效的设置：{settings}。</translation>
    </message>
    <message>
        <source>A Jupyter kernel for this environment, for your user only.</source>
        <translation>此环境的 Jupyter 内核，仅供当前用户使用。</translation>
    </message>
    <message>
        <source>Inside the environment, a start-up hook (_gpuwizard_cuda_dlls.pth) that puts the NVIDIA wheels&apos; DLL folders on the DLL search path of its own Python processes only: the machine&apos;s PATH is not changed.</source>
        <translation>环境内的启动钩子（_gpuwizard_cuda_dlls.pth），仅将 NVIDIA wheel 的 DLL 文件夹加入该环境自身 Python 进程的 DLL 搜索路径：不更改本机的 PATH。</translation>
    </message>
    <message>
        <source>Your user PATH gets these folders (the next page shows the change first, and it can be undone):</source>
        <translation>您的用户 PATH 将添加以下文件夹（下一页会先显示更改，且可撤销）：</translation>
    </message>
    <message>
        <source>You install yourself, the wizard does not: CUDA {cuda} and cuDNN {cudnn} from NVIDIA.</source>
        <translation>需要您自行安装（向导不会安装）：NVIDIA 的 CUDA {cuda} 和 cuDNN {cudnn}。</translation>
    </message>
    <message>
        <source>You install yourself, the wizard does not: an NVIDIA driver {minimum} or newer.</source>
        <translation>需要您自行安装（向导不会安装）：{minimum} 或更高版本的 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>You install yourself, the wizard does not: a newer NVIDIA driver.</source>
        <translation>需要您自行安装（向导不会安装）：更新版本的 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>Nothing else: drivers and system files stay as they are. No administrator rights are needed.</source>
        <translation>无其他更改：驱动程序和系统文件保持不变。无需管理员权限。</translation>
    </message>
    <message>
        <source>Nothing else: PATH, drivers and system files stay as they are. No administrator rights are needed.</source>
        <translation>无其他更改：PATH、驱动程序和系统文件保持不变。无需管理员权限。</translation>
    </message>
    <message>
        <source>your mirror of PyTorch&apos;s index, from {origin}</source>
        <extracomment>PyPI&apos;s simple index: what pip and uv use when nothing says otherwise (pip.pypa.io/en/stable/cli/pip_install/#cmdoption-i, docs.astral.sh/uv/concepts/indexes/). The wizard&apos;s setting for a mirror of PyTorch&apos;s index. Where a source comes from when the person set nothing. Hosts that are this machine: plain http to them never crosses a network. The variable each tool reads its index from, used instead of ``--index-url`` for an index URL that carries a login or a token: pip&apos;s ``--index-url`` as a variable (pip.pypa.io/en/stable/topics/configuration/#environment-variables), uv&apos;s default index (docs.astral.sh/uv/reference/environment/#uv_default_index, which uv prefers to UV_INDEX_URL). The variable the py-rattler engine reads its channels from (a JSON list), used instead of ``--channel`` when one of them carries a login or a token (``adapters/envs/rattler_engine.py``). Variables that carry a source a tool was given out of its command line: a log shows them. What an index is contacted for: the plan&apos;s packages, or only pip for a uv environment.</extracomment>
        <translation>您的 PyTorch 索引镜像，来自 {origin}</translation>
    </message>
    <message>
        <source>PyTorch&apos;s own index, for its {variant} build</source>
        <translation>PyTorch 自己的索引，用于其 {variant} 版本</translation>
    </message>
    <message>
        <source>your PyPI mirror, from {origin}</source>
        <translation>您的 PyPI 镜像，来自 {origin}</translation>
    </message>
    <message>
        <source>PyPI, the Python Package Index</source>
        <translation>PyPI（Python 软件包索引）</translation>
    </message>
    <message>
        <source>{reason}, only for pip in the new environment</source>
        <translation>{reason}，仅用于新环境中的 pip</translation>
    </message>
    <message>
        <source>where {host} sends the download on to</source>
        <extracomment>The ways reaching an index fails, as :class:`IndexAnswer` names them. What to set for a mirror of each kind of index (docs.astral.sh/uv/reference/environment/, pip.pypa.io/en/stable/topics/configuration/#environment-variables).</extracomment>
        <translation>{host} 将下载转发到的位置</translation>
    </message>
    <message>
        <source>the name {hostname} cannot be looked up (DNS)</source>
        <extracomment>What failed, by the probe&apos;s failure kind (adapters/http.py, ``probe_index``).</extracomment>
        <translation>无法解析名称 {hostname}（DNS）</translation>
    </message>
    <message>
        <source>{host} refused the connection</source>
        <translation>{host} 拒绝了连接</translation>
    </message>
    <message>
        <source>{host} did not answer in time</source>
        <translation>{host} 未及时响应</translation>
    </message>
    <message>
        <source>there is no network route to {host}</source>
        <translation>没有到 {host} 的网络路由</translation>
    </message>
    <message>
        <source>the certificate {host} showed cannot be verified (TLS)</source>
        <translation>无法验证 {host} 出示的证书（TLS）</translation>
    </message>
    <message>
        <source>the proxy {proxy} does not let the request through</source>
        <translation>代理 {proxy} 不放行该请求</translation>
    </message>
    <message>
        <source>the proxy {proxy} asks for a login (HTTP 407)</source>
        <translation>代理 {proxy} 要求登录（HTTP 407）</translation>
    </message>
    <message>
        <source>it answered HTTP {status}</source>
        <translation>它返回了 HTTP {status}</translation>
    </message>
    <message>
        <source>it answers</source>
        <translation>可以访问</translation>
    </message>
    <message>
        <source>it did not answer</source>
        <translation>没有响应</translation>
    </message>
    <message>
        <source>your mirror of Python builds, from {origin}: uv downloads Python {python} there, none is installed here</source>
        <extracomment>Where python-build-standalone&apos;s builds are published (GitHub release assets). Astral&apos;s mirror of those releases, which recent uv releases try first. The person&apos;s mirror of python-build-standalone&apos;s builds (it replaces :data:`PBS_GITHUB`). The person&apos;s mirror of everything uv fetches from releases.astral.sh. The builds&apos; source when the person set no mirror: uv&apos;s own choice. Where python.org&apos;s installers are, by OS family (the ways forward name them).</extracomment>
        <translation>您的 Python 构建镜像，来自 {origin}：uv 从那里下载 Python {python}，此处未安装</translation>
    </message>
    <message>
        <source>uv downloads Python {python} from there (a python-build-standalone build): none is installed here</source>
        <translation>uv 从那里下载 Python {python}（python-build-standalone 构建）：此处未安装</translation>
    </message>
    <message>
        <source>GitHub&apos;s copy of the same build, which uv tries when {host} does not answer</source>
        <translation>同一构建在 GitHub 上的副本，当 {host} 没有响应时 uv 会尝试它</translation>
    </message>
</context>
<context>
    <name>reasons</name>
    <message>
        <source>The wheel brings CUDA {cuda} and cuDNN {cudnn}: only the NVIDIA driver is needed.</source>
        <translation>该 wheel 自带 CUDA {cuda} 和 cuDNN {cudnn}：只需 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>The wheel brings CUDA {cuda}: only the NVIDIA driver is needed.</source>
        <translation>该 wheel 自带 CUDA {cuda}：只需 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>PyTorch calls its CUDA {cuda} build of this release experimental.</source>
        <translation>PyTorch 将此版本的 CUDA {cuda} 构建标为实验性。</translation>
    </message>
    <message>
        <source>{package} {spec} resolves to {version} (the data&apos;s resolution of {day}), which no longer supports compute capability {capabilities}: the plan pins {package}{pin}, in the environment&apos;s constraints too.</source>
        <translation>{package} {spec} 解析为 {version}（数据中记录的 {day} 的解析结果），该版本已不再支持计算能力 {capabilities}：方案固定为 {package}{pin}，环境的约束文件中也是如此。</translation>
    </message>
    <message>
        <source>{package} {spec} resolves to {version} today ({day}), which no longer supports compute capability {capabilities}: the plan pins {package}{pin}, in the environment&apos;s constraints too.</source>
        <translation>{package} {spec} 今天（{day}）解析为 {version}，该版本已不再支持计算能力 {capabilities}：方案固定为 {package}{pin}，环境的约束文件中也是如此。</translation>
    </message>
    <message>
        <source>tensorflow[and-cuda] brings CUDA {cuda} and cuDNN {cudnn} as pip packages.</source>
        <translation>tensorflow[and-cuda] 以 pip 包的形式提供 CUDA {cuda} 和 cuDNN {cudnn}。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s CUDA {runtime} and cuDNN {cudnn_runtime} wheels bring the DLLs into the environment, and it finds them however its Python is started: only the driver is needed, no CUDA toolkit, cuDNN download or PATH change.</source>
        <translation>NVIDIA 的 CUDA {runtime} 和 cuDNN {cudnn_runtime} wheel 会将 DLL 带入环境，无论以何种方式启动其 Python，环境都能找到这些 DLL：只需驱动程序，无需 CUDA 工具包、无需下载 cuDNN，也无需更改 PATH。</translation>
    </message>
    <message>
        <source>TensorFlow {version} was built with CUDA {cuda} and cuDNN {cudnn}: it runs on a later CUDA 11 runtime (NVIDIA&apos;s minor version compatibility) and accepts cuDNN {cudnn_runtime} (same major version, equal or higher minor: its own check when it loads cuDNN).</source>
        <translation>TensorFlow {version} 使用 CUDA {cuda} 和 cuDNN {cudnn} 构建：它可在更高版本的 CUDA 11 运行时上运行（NVIDIA 的次版本兼容性），并接受 cuDNN {cudnn_runtime}（主版本相同，次版本相同或更高：这是它加载 cuDNN 时自身执行的检查）。</translation>
    </message>
    <message>
        <source>conda-forge supplies CUDA {cuda} and cuDNN {cudnn} inside the environment: no PATH changes.</source>
        <translation>conda-forge 在环境中提供 CUDA {cuda} 和 cuDNN {cudnn}：无需更改 PATH。</translation>
    </message>
    <message>
        <source>Needs CUDA {cuda} and cuDNN {cudnn} installed on the system and on PATH.</source>
        <translation>需要在系统上安装 CUDA {cuda} 和 cuDNN {cudnn}，并加入 PATH。</translation>
    </message>
    <message>
        <source>Needs CUDA {cuda} and cuDNN {cudnn} installed on the system.</source>
        <translation>需要在系统上安装 CUDA {cuda} 和 cuDNN {cudnn}。</translation>
    </message>
    <message>
        <source>Runs on the CPU: no NVIDIA driver or CUDA needed.</source>
        <translation>在 CPU 上运行：无需 NVIDIA 驱动程序或 CUDA。</translation>
    </message>
    <message>
        <source>{gpu}: compute capability unknown, not checked against this build.</source>
        <translation>{gpu}：计算能力未知，未针对此构建版本进行检查。</translation>
    </message>
    <message>
        <source>{gpu} (compute capability {capability}) is covered by this build ({archs}).</source>
        <translation>{gpu}（计算能力 {capability}）在此构建版本的支持范围内（{archs}）。</translation>
    </message>
    <message>
        <source>{gpu} (compute capability {capability}) runs this build&apos;s PTX {ptx}, compiled at first use.</source>
        <translation>{gpu}（计算能力 {capability}）运行此构建版本的 PTX {ptx}，在首次使用时编译。</translation>
    </message>
    <message>
        <source>Needs an NVIDIA driver {minimum} or newer ({os}); none answers now.</source>
        <translation>需要 {minimum} 或更高版本的 NVIDIA 驱动程序（{os}）；当前没有驱动程序响应。</translation>
    </message>
    <message>
        <source>Driver {driver} is at least the {minimum} that CUDA {cuda} builds need on {os}.</source>
        <translation>驱动程序 {driver} 不低于 CUDA {cuda} 构建版本在 {os} 上所需的 {minimum}。</translation>
    </message>
    <message>
        <source>Needs driver {minimum} or newer on {os}; this machine has {driver}.</source>
        <translation>在 {os} 上需要 {minimum} 或更高版本的驱动程序；本机为 {driver}。</translation>
    </message>
    <message>
        <source>The highest CUDA of driver {driver} ({cuda_max}) was derived from NVIDIA&apos;s toolkit-driver table.</source>
        <translation>驱动程序 {driver} 支持的最高 CUDA 版本（{cuda_max}）是根据 NVIDIA 的工具包与驱动程序对应表推算的。</translation>
    </message>
    <message>
        <source>With a driver {minimum} or newer, {plan} becomes possible.</source>
        <translation>使用 {minimum} 或更高版本的驱动程序后，即可采用 {plan}。</translation>
    </message>
    <message>
        <source>PyTorch comes from pip inside the conda environment: the pytorch conda channel ended at {last}.</source>
        <translation>PyTorch 在 conda 环境中通过 pip 安装：pytorch conda 频道已于 {last} 停止更新。</translation>
    </message>
    <message>
        <source>This is WSL 2: the NVIDIA driver is the Windows host&apos;s, and its minimum is a Windows driver version.</source>
        <translation>这是 WSL 2：NVIDIA 驱动程序来自 Windows 主机，因此最低版本要求指的是 Windows 驱动程序版本。</translation>
    </message>
    <message>
        <source>WSL 2 gives CUDA to Linux from Windows build {minimum} on (Windows 10 21H2, or Windows 11); this Windows is build {build}: after a Windows update, current TensorFlow runs on this GPU inside WSL 2.</source>
        <translation>从 Windows 内部版本 {minimum} 起（Windows 10 21H2 或 Windows 11），WSL 2 才为 Linux 提供 CUDA；此 Windows 为内部版本 {build}：更新 Windows 后，当前的 TensorFlow 即可在 WSL 2 中使用这块 GPU。</translation>
    </message>
    <message>
        <source>To stay on native Windows instead (no WSL), choose {framework} {minor}: {summary}.</source>
        <translation>若要改为留在原生 Windows 上（不用 WSL），请选择 {framework} {minor}：{summary}。</translation>
    </message>
    <message>
        <source>The index has {framework} {patch}, newer than the {known} the data knows: a patch release keeps its minor&apos;s builds, so it is used.</source>
        <translation>索引中有 {framework} {patch}，比数据所知的 {known} 更新：补丁版本沿用其次版本的构建，因此采用它。</translation>
    </message>
    <message>
        <source>From PyPI: its {variant} build, a CUDA build that also runs on the CPU, several GB larger than the CPU build.</source>
        <translation>来自 PyPI：其 {variant} 版本，这是一个也能在 CPU 上运行的 CUDA 版本，比 CPU 版本大数 GB。</translation>
    </message>
    <message>
        <source>{gpu} is not used: the plan runs on {device}.</source>
        <translation>未使用 {gpu}：方案在 {device} 上运行。</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is covered by this build (it carries {targets}).</source>
        <extracomment>Added for an integrated GPU: a discrete one of any kind comes first.</extracomment>
        <translation>{gpu}（{target}）在此构建版本的支持范围内（它包含 {targets}）。</translation>
    </message>
    <message>
        <source>The wheel brings the ROCm {rocm} libraries: only the amdgpu kernel driver and access to /dev/kfd are needed.</source>
        <translation>该 wheel 自带 ROCm {rocm} 库：只需 amdgpu 内核驱动程序和 /dev/kfd 的访问权限。</translation>
    </message>
    <message>
        <source>{gpu} ({family}) is served by PyTorch&apos;s XPU build.</source>
        <translation>{gpu}（{family}）受 PyTorch XPU 构建版本支持。</translation>
    </message>
    <message>
        <source>Needs Intel&apos;s graphics driver {minimum} or newer; this machine has {driver}.</source>
        <translation>需要 {minimum} 或更高版本的 Intel 显卡驱动程序；本机为 {driver}。</translation>
    </message>
    <message>
        <source>Intel&apos;s graphics driver {driver} is at least the {minimum} the XPU build needs.</source>
        <translation>Intel 显卡驱动程序 {driver} 不低于 XPU 构建版本所需的 {minimum}。</translation>
    </message>
    <message>
        <source>Needs Intel&apos;s GPU driver: {minimum}.</source>
        <translation>需要 Intel 的 GPU 驱动程序：{minimum}。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s macOS wheel drives the {gpu} through Metal (MPS), which needs macOS {minimum} or newer; this Mac has {macos}.</source>
        <translation>PyTorch 的 macOS wheel 通过 Metal（MPS）驱动 {gpu}，需要 macOS {minimum} 或更高版本；这台 Mac 的系统为 {macos}。</translation>
    </message>
    <message>
        <source>Runs inside WSL 2 ({distro}), which uses this GPU through the Windows driver.</source>
        <extracomment>The distribution installed when there is none: the newest Ubuntu LTS in WSL&apos;s online list (``wsl --list --online``), the one TensorFlow&apos;s pip guide tests (&quot;Ubuntu 16.04 or higher&quot;; NVIDIA&apos;s CUDA on WSL guide uses Ubuntu throughout). Where the wizard keeps what it makes inside a distribution (its Linux home there). Distributions that WSL lists but that are other programs&apos; engines, not a place for a person&apos;s environment: Docker Desktop&apos;s (docker-desktop, docker-desktop-data), Rancher Desktop&apos;s (rancher-desktop, rancher-desktop-data) and Podman&apos;s machines (podman-machine-default). What a route&apos;s state means, in the order a person meets them.</extracomment>
        <translation>在 WSL 2（{distro}）中运行，WSL 2 通过 Windows 驱动使用此 GPU。</translation>
    </message>
    <message>
        <source>WSL is not installed. Before anything else changes, installing it (&apos;{command}&apos;) needs the administrator&apos;s consent and a download, and Windows may have to restart; the wizard goes on where it stopped.</source>
        <translation>未安装 WSL。在进行任何其他更改之前，安装 WSL（&apos;{command}&apos;）需要管理员授权并下载文件，且 Windows 可能需要重启；向导会从中断处继续。</translation>
    </message>
    <message>
        <source>WSL has no Linux distribution for the environment: &apos;{command}&apos; downloads {distro} first (no administrator needed).</source>
        <translation>WSL 中没有可用于该环境的 Linux 发行版：&apos;{command}&apos; 会先下载 {distro}（无需管理员权限）。</translation>
    </message>
    <message>
        <source>{distro} runs under WSL 1, which has no GPU: &apos;{command}&apos; converts it to WSL 2 first (its files are kept).</source>
        <translation>{distro} 运行在 WSL 1 下，而 WSL 1 无法使用 GPU：&apos;{command}&apos; 会先将其转换为 WSL 2（其文件会保留）。</translation>
    </message>
    <message>
        <source>An installation of WSL waits for Windows to restart: restart, then go on.</source>
        <translation>一项 WSL 安装正在等待 Windows 重启：请重启，然后继续。</translation>
    </message>
    <message>
        <source>WSL 2 cannot start its virtual machine: turn virtualization on in the computer&apos;s firmware settings (Intel VT-x or AMD-V/SVM), run &apos;{command}&apos; as administrator for the Virtual Machine Platform feature, and restart Windows.</source>
        <translation>WSL 2 无法启动其虚拟机：请在电脑的固件设置中开启虚拟化（Intel VT-x 或 AMD-V/SVM），以管理员身份运行 &apos;{command}&apos; 以启用虚拟机平台功能，然后重启 Windows。</translation>
    </message>
    <message>
        <source>{distro}&apos;s first start asks you for a Linux user name and password (they need not match Windows&apos;).</source>
        <translation>{distro} 首次启动时会要求你设置 Linux 用户名和密码（不必与 Windows 的相同）。</translation>
    </message>
    <message>
        <source>This report does not say whether WSL is installed: detect again on this Windows machine to know what the route needs first.</source>
        <translation>此报告未说明是否已安装 WSL：请在这台 Windows 计算机上重新检测，以了解该路线首先需要什么。</translation>
    </message>
    <message>
        <source>WSL says virtualization is off: turn it on in the firmware settings (Intel VT-x or AMD-V/SVM) before WSL 2 can start.</source>
        <translation>WSL 报告虚拟化已关闭：请先在固件设置中开启虚拟化（Intel VT-x 或 AMD-V/SVM），WSL 2 才能启动。</translation>
    </message>
    <message>
        <source>Inside {distro}, the wizard keeps everything it makes under {home}: uv, Python and the environment (no sudo, and the distribution&apos;s own Python is left alone).</source>
        <translation>在 {distro} 中，向导会将其创建的所有内容都放在 {home} 下：uv、Python 和环境（无需 sudo，也不会改动发行版自带的 Python）。</translation>
    </message>
</context>
<context>
    <name>stages</name>
    <message>
        <source>Importing {framework}…</source>
        <extracomment>Each stage in words (``import``&apos;s ``{framework}``: the framework&apos;s name).</extracomment>
        <translation>正在导入 {framework}…</translation>
    </message>
    <message>
        <source>Starting CUDA on the GPU…</source>
        <translation>正在 GPU 上启动 CUDA…</translation>
    </message>
    <message>
        <source>Compiling the model for the GPU…</source>
        <extracomment>A stage on a named device, where that says more.</extracomment>
        <translation>正在为 GPU 编译模型…</translation>
    </message>
    <message>
        <source>Compiling the model for the CPU…</source>
        <translation>正在为 CPU 编译模型…</translation>
    </message>
    <message>
        <source>Compiling the model…</source>
        <translation>正在编译模型…</translation>
    </message>
    <message>
        <source>Making the training data…</source>
        <extracomment>Each phase in words; ``{device}`` is :data:`DEVICE_WORDS`&apos; words for the phase&apos;s device.</extracomment>
        <translation>正在生成训练数据…</translation>
    </message>
    <message>
        <source>Warming up on {device}…</source>
        <translation>正在 {device} 上预热…</translation>
    </message>
    <message>
        <source>Training on {device}…</source>
        <translation>正在 {device} 上训练…</translation>
    </message>
    <message>
        <source>Measuring the GPU&apos;s matrix multiply rate…</source>
        <translation>正在测量 GPU 的矩阵乘法速率…</translation>
    </message>
    <message>
        <source>Checking that the GPU and the CPU compute the same…</source>
        <translation>正在检查 GPU 与 CPU 的计算结果是否一致…</translation>
    </message>
    <message>
        <source>the GPU</source>
        <extracomment>A phase&apos;s device in words; any other (or none) is &quot;the device&quot;.</extracomment>
        <translation>GPU</translation>
    </message>
    <message>
        <source>the CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>the device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Starting ROCm on the GPU…</source>
        <translation>正在 GPU 上启动 ROCm…</translation>
    </message>
    <message>
        <source>Starting the Intel GPU runtime…</source>
        <translation>正在启动 Intel GPU 运行时…</translation>
    </message>
    <message>
        <source>Starting Metal on the GPU…</source>
        <translation>正在 GPU 上启动 Metal…</translation>
    </message>
    <message>
        <source>A framework loads about a thousand modules and large native libraries; the next time is faster.</source>
        <translation>框架需要加载约一千个模块和大型原生库；下次会更快。</translation>
    </message>
    <message>
        <source>The driver sets the GPU up for this program and loads the framework&apos;s GPU code.</source>
        <translation>驱动程序为此程序准备 GPU，并加载框架的 GPU 代码。</translation>
    </message>
    <message>
        <source>The first training steps prepare the model: the framework picks and tunes its kernels. The steps after them are quick.</source>
        <translation>最初的几个训练步骤用于准备模型：框架会选择并调优其内核。之后的步骤会很快。</translation>
    </message>
</context>
<context>
    <name>usage</name>
    <message>
        <source>Open {distro}&apos;s shell from Windows</source>
        <translation>从 Windows 打开 {distro} 的 shell</translation>
    </message>
    <message>
        <source>Activate the environment in that shell</source>
        <translation>在该 shell 中激活环境</translation>
    </message>
    <message>
        <source>Run a script of the current Windows folder with the environment&apos;s Python</source>
        <translation>用环境中的 Python 运行当前 Windows 文件夹中的脚本</translation>
    </message>
    <message>
        <source>VS Code (with its WSL extension, ms-vscode-remote.remote-wsl)</source>
        <translation>VS Code（配合其 WSL 扩展 ms-vscode-remote.remote-wsl）</translation>
    </message>
    <message>
        <source>Then run &apos;Python: Select Interpreter&apos; and enter {python}.</source>
        <translation>然后运行 &apos;Python: Select Interpreter&apos; 并输入 {python}。</translation>
    </message>
    <message>
        <source>Jupyter, opened in the Windows browser</source>
        <translation>Jupyter，在 Windows 浏览器中打开</translation>
    </message>
    <message>
        <source>Then open the http://localhost:8888/... address it prints in the Windows browser: WSL 2 passes localhost through.</source>
        <translation>然后在 Windows 浏览器中打开它输出的 http://localhost:8888/... 地址：WSL 2 会转发 localhost。</translation>
    </message>
    <message>
        <source>PyCharm</source>
        <translation>PyCharm</translation>
    </message>
    <message>
        <source>Settings, Python Interpreter, Add Interpreter, On WSL: choose {distro}, then the existing interpreter {python}.</source>
        <translation>Settings, Python Interpreter, Add Interpreter, On WSL：选择 {distro}，然后选择现有解释器 {python}。</translation>
    </message>
</context>
<context>
    <name>verdicts</name>
    <message>
        <source>the GPU trains, clearly faster than the CPU</source>
        <extracomment>The ``verdict`` of a test stopped before it finished: none of :data:`VERDICTS`, no judgement.</extracomment>
        <translation>GPU 可以训练，明显快于 CPU</translation>
    </message>
    <message>
        <source>Your GPU trains.</source>
        <translation>您的 GPU 可以训练。</translation>
    </message>
    <message>
        <source>Your GPU trains, {speedup}× faster than the CPU.</source>
        <translation>您的 GPU 可以训练，速度是 CPU 的 {speedup} 倍。</translation>
    </message>
    <message>
        <source>the GPU trains, but not clearly faster than the CPU</source>
        <translation>GPU 可以训练，但并不明显快于 CPU</translation>
    </message>
    <message>
        <source>training works on the CPU only</source>
        <translation>只能在 CPU 上训练</translation>
    </message>
    <message>
        <source>training does not work in this environment</source>
        <translation>此环境中无法训练</translation>
    </message>
    <message>
        <source>the test was stopped before it finished</source>
        <translation>测试在完成前被停止</translation>
    </message>
    <message>
        <source>The test was stopped before it finished: no verdict.</source>
        <translation>测试在完成前被停止：没有结论。</translation>
    </message>
    <message>
        <source>Your GPU trains, but not clearly faster than the CPU.</source>
        <translation>您的 GPU 可以训练，但并不明显快于 CPU。</translation>
    </message>
    <message>
        <source>Your GPU trains, but only {speedup}× faster than the CPU.</source>
        <translation>您的 GPU 可以训练，但速度仅为 CPU 的 {speedup} 倍。</translation>
    </message>
    <message>
        <source>Training works on the CPU only.</source>
        <translation>只能在 CPU 上训练。</translation>
    </message>
    <message>
        <source>Training does not work in this environment.</source>
        <translation>此环境中无法训练。</translation>
    </message>
</context>
<context>
    <name>verify_checks</name>
    <message>
        <source>NVIDIA driver</source>
        <extracomment>What each kind of check looks at, as a title; ``{subject}`` is the environment or the folder.</extracomment>
        <translation>NVIDIA 驱动程序</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>{subject}: Python runs</source>
        <translation>{subject}：Python 可运行</translation>
    </message>
    <message>
        <source>{subject}: the framework imports</source>
        <translation>{subject}：框架可导入</translation>
    </message>
    <message>
        <source>{subject}: framework build</source>
        <translation>{subject}：框架构建版本</translation>
    </message>
    <message>
        <source>{subject}: the build is pinned</source>
        <translation>{subject}：构建版本已锁定</translation>
    </message>
    <message>
        <source>{subject}: GPUs the framework sees</source>
        <translation>{subject}：框架识别到的 GPU</translation>
    </message>
    <message>
        <source>{subject}: NVIDIA CUDA wheels</source>
        <translation>{subject}：NVIDIA CUDA wheel</translation>
    </message>
    <message>
        <source>{subject}: short training test</source>
        <translation>{subject}：简短训练测试</translation>
    </message>
    <message>
        <source>PATH: {subject}</source>
        <translation>PATH：{subject}</translation>
    </message>
</context>
<context>
    <name>verify_phases</name>
    <message>
        <source>Looking at this machine…</source>
        <extracomment>The steps of a verification: the machine, then per environment its checks and its short live test, then the PATH folders the wizard added. How a verification ended: every check ran, the person stopped it, or the wizard had set nothing up here to verify. The translation context of :data:`PHASE_WORDS`. The translation context of :data:`CHECK_WORDS`. Each phase as a line under way; ``{subject}`` is the environment.</extracomment>
        <translation>正在检查本机…</translation>
    </message>
    <message>
        <source>Checking the environment {subject}…</source>
        <translation>正在检查环境 {subject}…</translation>
    </message>
    <message>
        <source>Training a small network in {subject}…</source>
        <translation>正在 {subject} 中训练小型网络…</translation>
    </message>
    <message>
        <source>Checking PATH…</source>
        <translation>正在检查 PATH…</translation>
    </message>
</context>
<context>
    <name>verify_values</name>
    <message>
        <source>{pin} (installed: {installed})</source>
        <extracomment>The translation context of the values in words a check reports (&quot;2 GPUs (…)&quot;): the Verify page shows them in the interface&apos;s language; ``--json`` keeps the English. The keys of the env probe&apos;s answer (``probes/env_report.py``) that :func:`observe_environment` reads: what a recorded answer must keep to be observed again as the probe&apos;s own. A key read there and missing here would make a reused answer differ from a fresh one (tests/core/health/test_probe_reuse.py checks the two agree on real answers).</extracomment>
        <translation>{pin}(已安装:{installed})</translation>
    </message>
    <message>
        <source>{pin} ({tools} not pointed at it)</source>
        <translation>{pin}({tools} 未指向它)</translation>
    </message>
    <message>
        <source>1 GPU ({names})</source>
        <translation>1 个 GPU({names})</translation>
    </message>
    <message>
        <source>{count} GPUs ({names})</source>
        <translation>{count} 个 GPU({names})</translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation>1 个 GPU</translation>
    </message>
    <message>
        <source>{count} GPUs</source>
        <translation>{count} 个 GPU</translation>
    </message>
</context>
<context>
    <name>wheel_folder</name>
    <message>
        <source>Holds {build} for Python {python} ({size}); it needs nothing else.</source>
        <extracomment>The index pip falls back to for what a framework&apos;s own index does not mirror (ipykernel and the packages a person adds): PyPI&apos;s simple API (pip.pypa.io/en/stable/cli/pip_install/, &quot;--extra-index-url&quot;).</extracomment>
        <translation>包含适用于 Python {python} 的 {build}（{size}）；无需其他任何文件。</translation>
    </message>
    <message>
        <source>Holds {build}, {extras} and everything they need for Python {python}: {count} wheels, {size}.</source>
        <translation>包含 {build}、{extras} 及其在 Python {python} 下所需的全部依赖：{count} 个 wheel 文件，{size}。</translation>
    </message>
    <message>
        <source>Holds {build} and everything it needs for Python {python}: {count} wheels, {size}.</source>
        <translation>包含 {build} 及其在 Python {python} 下所需的全部依赖：{count} 个 wheel 文件，{size}。</translation>
    </message>
    <message>
        <source>The folder could not be checked; the install will say what is missing.</source>
        <translation>无法检查该文件夹；安装过程会提示缺少哪些内容。</translation>
    </message>
    <message>
        <source>This folder cannot install {build} for Python {python} on {platform}.</source>
        <translation>此文件夹无法在 {platform} 上为 Python {python} 安装 {build}。</translation>
    </message>
    <message>
        <source>The fetch command downloads from PyPI: run it here if this machine reaches pypi.org, else on one that does.</source>
        <translation>下载命令从 PyPI 下载：如果这台机器能访问 pypi.org，就在这里运行；否则在能访问的机器上运行。</translation>
    </message>
    <message>
        <source>The fetch command downloads from {index} ({build} is not on PyPI): run it on a machine that reaches {host}.</source>
        <translation>下载命令从 {index} 下载（{build} 不在 PyPI 上）：请在能访问 {host} 的机器上运行。</translation>
    </message>
    <message>
        <source>Its {name} wheel is for {theirs}, not {ours}.</source>
        <extracomment>The longest fetch command :func:`download_command` writes, not counting the folder&apos;s path (named twice at most): a line a person can read and copy (issue 41, point 8: it was 400).</extracomment>
        <translation>其中的 {name} wheel 文件适用于 {theirs}，而不是 {ours}。</translation>
    </message>
    <message>
        <source>Its {count} {name} wheels are for {theirs}, not {ours}.</source>
        <translation>其中的 {count} 个 {name} wheel 文件适用于 {theirs}，而不是 {ours}。</translation>
    </message>
    <message>
        <source>It has no {name} wheel at all (the plan needs {build}).</source>
        <translation>其中根本没有 {name} 的 wheel 文件（方案需要 {build}）。</translation>
    </message>
    <message>
        <source>Its {name} {found} would be installed, not the plan&apos;s {build}: remove that wheel and add the plan&apos;s.</source>
        <translation>将安装其中的 {name} {found}，而不是方案中的 {build}：请删除该 wheel 文件，并添加方案所需的文件。</translation>
    </message>
    <message>
        <source>It has {name} {found}, not {build}.</source>
        <translation>其中是 {name} {found}，而不是 {build}。</translation>
    </message>
    <message>
        <source>Its {name} {found} will be installed rather than the plan&apos;s {build}: it runs on the CPU too, but is a larger download.</source>
        <translation>将安装其中的 {name} {found}，而不是方案中的 {build}：它也能在 CPU 上运行，但下载量更大。</translation>
    </message>
    <message>
        <source>It has no wheel of {names}, which the plan&apos;s packages need.</source>
        <translation>其中没有 {names} 的 wheel 文件，而方案中的软件包需要它们。</translation>
    </message>
    <message>
        <source>The installer found no way to install from it: {message}</source>
        <translation>安装程序找不到从中安装的方法：{message}</translation>
    </message>
    <message>
        <source>Checking it failed: {message}</source>
        <translation>检查失败：{message}</translation>
    </message>
</context>
</TS>
