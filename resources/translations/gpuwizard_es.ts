<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>ChoiceInputs</name>
    <message>
        <source>Framework</source>
        <extracomment>The version list&apos;s data for &quot;Recommended&quot; (a release&apos;s data is its version).</extracomment>
        <translation>Framework</translation>
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
        <translation>Framework: PyTorch</translation>
    </message>
    <message>
        <source>Framework: TensorFlow</source>
        <translation>Framework: TensorFlow</translation>
    </message>
    <message>
        <source>Framework version</source>
        <translation>Versión del framework</translation>
    </message>
    <message>
        <source>“Recommended” lets the wizard pick the newest release that works on this machine. Pick a release when a project needs that one.</source>
        <translation>“Recomendada” deja que el asistente elija la versión más reciente que funciona en esta máquina. Elige una versión concreta cuando un proyecto la necesite.</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>Recomendada</translation>
    </message>
    <message>
        <source>&amp;Version:</source>
        <translation>&amp;Versión:</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Entorno</translation>
    </message>
    <message>
        <source>&amp;Automatic (best for the plan)</source>
        <translation>A&amp;utomático (lo mejor para el plan)</translation>
    </message>
    <message>
        <source>The wizard picks venv or conda: conda where it brings CUDA and cuDNN into the environment that would otherwise have to be installed on the system.</source>
        <translation>El asistente elige venv o conda: conda cuando aporta al entorno CUDA y cuDNN, que de otro modo habría que instalar en el sistema.</translation>
    </message>
    <message>
        <source>v&amp;env</source>
        <translation>v&amp;env</translation>
    </message>
    <message>
        <source>venv: a Python virtual environment, a folder with its own Python packages (made with uv or pip). Needs nothing else installed.</source>
        <translation>venv: un entorno virtual de Python, una carpeta con sus propios paquetes de Python (creado con uv o pip). No necesita nada más instalado.</translation>
    </message>
    <message>
        <source>c&amp;onda</source>
        <translation>c&amp;onda</translation>
    </message>
    <message>
        <source>Environment manager: automatic</source>
        <translation>Gestor de entornos: automático</translation>
    </message>
    <message>
        <source>Environment manager: venv</source>
        <translation>Gestor de entornos: venv</translation>
    </message>
    <message>
        <source>Environment manager: conda</source>
        <translation>Gestor de entornos: conda</translation>
    </message>
    <message>
        <source>Environment name</source>
        <translation>Nombre del entorno</translation>
    </message>
    <message>
        <source>The environment&apos;s folder name; also its name in conda and Jupyter.</source>
        <translation>El nombre de la carpeta del entorno; también su nombre en conda y Jupyter.</translation>
    </message>
    <message>
        <source>Na&amp;me:</source>
        <translation>&amp;Nombre:</translation>
    </message>
    <message>
        <source>Register a &amp;Jupyter kernel</source>
        <translation>Registrar un kernel de &amp;Jupyter</translation>
    </message>
    <message>
        <source>Register a Jupyter kernel</source>
        <translation>Registrar un kernel de Jupyter</translation>
    </message>
    <message>
        <source>Installs ipykernel in the environment so that Jupyter and VS Code notebooks can use it.</source>
        <translation>Instala ipykernel en el entorno para que los notebooks de Jupyter y VS Code puedan usarlo.</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>&amp;GPUs the environment uses:</source>
        <translation>&amp;GPU que usa el entorno:</translation>
    </message>
    <message>
        <source>GPUs the environment uses (Space ticks or clears one)</source>
        <translation>GPU que usa el entorno (Espacio marca o desmarca una)</translation>
    </message>
    <message>
        <source>Untick a GPU to keep it free for other work: the environment then sets CUDA_VISIBLE_DEVICES to the ticked ones.</source>
        <translation>Desmarca una GPU para dejarla libre para otras tareas: el entorno define entonces CUDA_VISIBLE_DEVICES con las marcadas.</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>Paquetes</translation>
    </message>
    <message>
        <source>From a &amp;folder of wheels (offline)</source>
        <translation>Desde una &amp;carpeta de wheels (sin conexión)</translation>
    </message>
    <message>
        <source>Install packages from a folder of wheels, offline</source>
        <translation>Instalar paquetes desde una carpeta de wheels, sin conexión</translation>
    </message>
    <message>
        <source>For machines without internet: install only from a folder of .whl files (made with “pip download” on another machine). Nothing is fetched.</source>
        <translation>Para máquinas sin internet: instala solo desde una carpeta de archivos .whl (creada con “pip download” en otra máquina). No se descarga nada.</translation>
    </message>
    <message>
        <source>Folder of wheels</source>
        <translation>Carpeta de wheels</translation>
    </message>
    <message>
        <source>Folder of .whl files</source>
        <translation>Carpeta de archivos .whl</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>E&amp;xaminar…</translation>
    </message>
    <message>
        <source>Choose the folder of wheels</source>
        <translation>Elige la carpeta de wheels</translation>
    </message>
</context>
<context>
    <name>ChoosePage</name>
    <message>
        <source>Choose</source>
        <translation>Elegir</translation>
    </message>
    <message>
        <source>Pick a framework; the wizard works out a matching set and shows what it would change.</source>
        <translation>Elige un framework; el asistente calcula un conjunto compatible y te muestra qué cambiaría.</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: the plan is for that machine, and nothing will be installed here.</source>
        <translation>Esta es una vista previa de un informe guardado: el plan es para esa máquina y aquí no se instalará nada.</translation>
    </message>
    <message>
        <source>The recommendation</source>
        <translation>La recomendación</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>Recomendada</translation>
    </message>
    <message>
        <source>conda: an environment manager (here through %1) that can also bring CUDA and cuDNN into the environment, from conda-forge.</source>
        <translation>conda: un gestor de entornos (aquí a través de %1) que también puede traer CUDA y cuDNN al entorno, desde conda-forge.</translation>
    </message>
    <message>
        <source>GPU %1: %2</source>
        <translation>GPU %1: %2</translation>
    </message>
    <message>
        <source>not responding</source>
        <translation>no responde</translation>
    </message>
    <message>
        <source>no driver</source>
        <translation>sin controlador</translation>
    </message>
    <message>
        <source>not usable: %1</source>
        <translation>no utilizable: %1</translation>
    </message>
    <message>
        <source>compute capability %1</source>
        <translation>capacidad de cómputo %1</translation>
    </message>
    <message>
        <source>Compute capability is the GPU generation&apos;s feature level (8.6 for the GeForce RTX 30 series); a framework build runs only on the levels it was made for.</source>
        <translation>La capacidad de cómputo es el nivel de funciones de la generación de la GPU (8.6 para la serie GeForce RTX 30); una compilación de un framework solo funciona en los niveles para los que se hizo.</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found, so there is nothing to pick: the plan is a CPU build.</source>
        <translation>No se encontró ninguna GPU NVIDIA, así que no hay nada que elegir: el plan es una compilación para CPU.</translation>
    </message>
    <message>
        <source>conda: an environment manager that can also bring CUDA and cuDNN into the environment, from conda-forge. No conda is installed here, and none is needed: the wizard makes the environment with py-rattler, built into the wizard.</source>
        <translation>conda: un gestor de entornos que también puede traer CUDA y cuDNN al entorno, desde conda-forge. Aquí no hay conda instalado, y no hace falta: el asistente crea el entorno con py-rattler, incluido en el asistente.</translation>
    </message>
    <message>
        <source>Tick at least one GPU.</source>
        <translation>Marca al menos una GPU.</translation>
    </message>
    <message>
        <source>This name cannot be used: %1</source>
        <translation>Este nombre no se puede usar: %1</translation>
    </message>
    <message>
        <source>An environment of this name exists: it will be replaced (and put back if this fails).</source>
        <translation>Ya existe un entorno con este nombre: se reemplazará (y se restaurará si esto falla).</translation>
    </message>
    <message>
        <source>There is no such folder.</source>
        <translation>Esa carpeta no existe.</translation>
    </message>
    <message>
        <source>The folder of wheels</source>
        <translation>La carpeta de wheels</translation>
    </message>
    <message>
        <source>Waiting for the detection of this machine…</source>
        <translation>Esperando la detección de esta máquina…</translation>
    </message>
    <message>
        <source>Working out the plan…</source>
        <translation>Calculando el plan…</translation>
    </message>
    <message>
        <source>The list of releases could not be read (%1); “Recommended” still works.</source>
        <translation>No se pudo leer la lista de versiones (%1); “Recomendada” sigue funcionando.</translation>
    </message>
</context>
<context>
    <name>CommandLine</name>
    <message>
        <source>Command</source>
        <translation>Comando</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Copiar</translation>
    </message>
    <message>
        <source>Copy the command</source>
        <translation>Copiar el comando</translation>
    </message>
    <message>
        <source>Put this command on the clipboard, to paste into a terminal.</source>
        <translation>Pone este comando en el portapapeles, para pegarlo en una terminal.</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Copiado</translation>
    </message>
</context>
<context>
    <name>CudaLibrariesView</name>
    <message>
        <source>CUDA libraries</source>
        <extracomment>The list shows this many rows before it scrolls.</extracomment>
        <translation>Bibliotecas de CUDA</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>Biblioteca</translation>
    </message>
    <message>
        <source>Loaded from</source>
        <translation>Cargada desde</translation>
    </message>
    <message>
        <source>CUDA libraries and the files they were loaded from</source>
        <translation>Bibliotecas de CUDA y los archivos desde los que se cargaron</translation>
    </message>
    <message numerus="yes">
        <source>The test loaded %n CUDA libraries; each came from the file beside it.</source>
        <translation>
            <numerusform>La prueba cargó %n biblioteca de CUDA; procede del archivo que figura a su lado.</numerusform>
            <numerusform>La prueba cargó %n bibliotecas de CUDA; cada una procede del archivo que figura a su lado.</numerusform>
        </translation>
    </message>
    <message>
        <source>The test loaded no CUDA library: the framework did not use one.</source>
        <translation>La prueba no cargó ninguna biblioteca de CUDA: el framework no usó ninguna.</translation>
    </message>
    <message numerus="yes">
        <source>The environment&apos;s start-up hook put %n NVIDIA wheel folders on the DLL search path.</source>
        <translation>
            <numerusform>El hook de inicio del entorno añadió %n carpeta de wheels de NVIDIA a la ruta de búsqueda de DLL.</numerusform>
            <numerusform>El hook de inicio del entorno añadió %n carpetas de wheels de NVIDIA a la ruta de búsqueda de DLL.</numerusform>
        </translation>
    </message>
    <message>
        <source>The environment&apos;s start-up hook added no folder: %1</source>
        <translation>El hook de inicio del entorno no añadió ninguna carpeta: %1</translation>
    </message>
    <message>
        <source>The environment&apos;s start-up hook found no NVIDIA wheel folder to add.</source>
        <translation>El hook de inicio del entorno no encontró ninguna carpeta de wheels de NVIDIA que añadir.</translation>
    </message>
</context>
<context>
    <name>DetectPage</name>
    <message>
        <source>Your machine</source>
        <translation>Tu máquina</translation>
    </message>
    <message>
        <source>What the wizard found, and what it means for GPU training.</source>
        <translation>Lo que encontró el asistente y lo que significa para entrenar en la GPU.</translation>
    </message>
    <message>
        <source>Looking at this machine…</source>
        <translation>Examinando esta máquina…</translation>
    </message>
    <message>
        <source>Detection in progress</source>
        <translation>Detección en curso</translation>
    </message>
    <message>
        <source>&amp;Retry</source>
        <translation>&amp;Reintentar</translation>
    </message>
    <message>
        <source>System report</source>
        <translation>Informe del sistema</translation>
    </message>
    <message>
        <source>Detection failed: %1</source>
        <translation>La detección falló: %1</translation>
    </message>
</context>
<context>
    <name>InstallPage</name>
    <message>
        <source>Install</source>
        <translation>Instalar</translation>
    </message>
    <message>
        <source>The wizard creates the environment and installs the framework build.</source>
        <translation>El asistente crea el entorno e instala la compilación del framework.</translation>
    </message>
    <message>
        <source>&amp;Next &gt;</source>
        <translation>&amp;Siguiente &gt;</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: nothing is installed on this machine. On the machine itself, this page creates the environment and shows its progress and log.</source>
        <extracomment>The question the Cancel installation button opens, while it is open.</extracomment>
        <translation>Esta es una vista previa de un informe guardado: no se instala nada en esta máquina. En la propia máquina, esta página crea el entorno y muestra su progreso y su registro.</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Progreso</translation>
    </message>
    <message>
        <source>Waiting to start…</source>
        <translation>Esperando para empezar…</translation>
    </message>
    <message>
        <source>Installation progress</source>
        <translation>Progreso de la instalación</translation>
    </message>
    <message>
        <source>Current package</source>
        <translation>Paquete actual</translation>
    </message>
    <message>
        <source>&amp;Cancel installation</source>
        <translation>&amp;Cancelar instalación</translation>
    </message>
    <message>
        <source>Cancel the installation and remove what was made</source>
        <translation>Cancelar la instalación y quitar lo creado</translation>
    </message>
    <message>
        <source>Stop now: the running tool is ended and the half-made environment is removed.</source>
        <translation>Detener ahora: se cierra la herramienta en ejecución y se elimina el entorno a medio crear.</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Registro</translation>
    </message>
    <message>
        <source>Installation log</source>
        <translation>Registro de instalación</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Resultado</translation>
    </message>
    <message>
        <source>Installation result</source>
        <translation>Resultado de la instalación</translation>
    </message>
    <message>
        <source>Environment folder</source>
        <translation>Carpeta del entorno</translation>
    </message>
    <message>
        <source>Interpreter</source>
        <translation>Intérprete</translation>
    </message>
    <message>
        <source>Select this interpreter in VS Code (Python: Select Interpreter) or PyCharm.</source>
        <translation>Selecciona este intérprete en VS Code (Python: Select Interpreter) o PyCharm.</translation>
    </message>
    <message>
        <source>Framework build</source>
        <translation>Compilación del framework</translation>
    </message>
    <message>
        <source>Full log</source>
        <translation>Registro completo</translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation>Carpeta:</translation>
    </message>
    <message>
        <source>Interpreter:</source>
        <translation>Intérprete:</translation>
    </message>
    <message>
        <source>Framework:</source>
        <translation>Framework:</translation>
    </message>
    <message>
        <source>Full log:</source>
        <translation>Registro completo:</translation>
    </message>
    <message>
        <source>&amp;Retry</source>
        <translation>&amp;Reintentar</translation>
    </message>
    <message>
        <source>Try the installation again</source>
        <translation>Intentar de nuevo la instalación</translation>
    </message>
    <message>
        <source>Nothing runs in a preview.</source>
        <translation>En una vista previa no se ejecuta nada.</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>Sin iniciar</translation>
    </message>
    <message>
        <source>there is no plan to install yet: choose a framework first</source>
        <translation>aún no hay un plan que instalar: elige primero un framework</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>Iniciando…</translation>
    </message>
    <message>
        <source>WSL is not ready: run %1 yourself, then come back to this page.</source>
        <translation>WSL no está listo: ejecuta %1 tú mismo y luego vuelve a esta página.</translation>
    </message>
    <message>
        <source>Making WSL ready: answer the windows Windows opens…</source>
        <translation>Preparando WSL: responde en las ventanas que abra Windows…</translation>
    </message>
    <message>
        <source>Cancelling: removing what was made…</source>
        <translation>Cancelando: quitando lo creado…</translation>
    </message>
    <message>
        <source>== cancel requested: stopping and removing what was made</source>
        <translation>== cancelación solicitada: deteniendo y quitando lo creado</translation>
    </message>
    <message>
        <source>%1 %p%</source>
        <translation>%1 %p%</translation>
    </message>
    <message>
        <source>%v of %m packages</source>
        <translation>%v de %m paquetes</translation>
    </message>
    <message>
        <source>the installation stopped with an unexpected error: %1</source>
        <translation>la instalación se detuvo por un error inesperado: %1</translation>
    </message>
    <message>
        <source>All steps finished.</source>
        <translation>Todos los pasos han terminado.</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Listo</translation>
    </message>
    <message>
        <source>The environment %1 is ready.</source>
        <translation>El entorno %1 está listo.</translation>
    </message>
    <message>
        <source>%1 (made in %2 s)</source>
        <translation>%1 (creado en %2 s)</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(ninguno)</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Cancelado</translation>
    </message>
    <message>
        <source>Cancelled. Nothing was left behind.</source>
        <translation>Cancelado. No quedó nada.</translation>
    </message>
    <message>
        <source>Cancelled, but not everything could be removed.</source>
        <translation>Cancelado, pero no se pudo quitar todo.</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Falló</translation>
    </message>
    <message>
        <source>The environment could not be created.</source>
        <translation>No se pudo crear el entorno.</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Detenido</translation>
    </message>
    <message>
        <source>Why: %1</source>
        <translation>Motivo: %1</translation>
    </message>
    <message>
        <source>Still there, to remove by hand: %1</source>
        <translation>Sigue ahí, quítalo a mano: %1</translation>
    </message>
    <message>
        <source>Everything that was made has been removed.</source>
        <translation>Se ha quitado todo lo que se creó.</translation>
    </message>
    <message>
        <source>Full log: %1</source>
        <translation>Registro completo: %1</translation>
    </message>
    <message>
        <source>No plan has been chosen yet.</source>
        <translation>Aún no se ha elegido ningún plan.</translation>
    </message>
    <message>
        <source>CPU build</source>
        <translation>Compilación para CPU</translation>
    </message>
    <message>
        <source>ROCm build (%1)</source>
        <translation>Compilación ROCm (%1)</translation>
    </message>
    <message>
        <source>Intel GPU build (XPU)</source>
        <translation>Compilación para GPU Intel (XPU)</translation>
    </message>
    <message>
        <source>build for the Apple GPU (MPS)</source>
        <translation>compilación para la GPU de Apple (MPS)</translation>
    </message>
    <message>
        <source>CUDA %1 build</source>
        <translation>Compilación CUDA %1</translation>
    </message>
    <message>
        <source>The environment %1 gets %2 %3 (%4) with Python %5, inside WSL 2 (%6).</source>
        <translation>El entorno %1 recibe %2 %3 (%4) con Python %5, dentro de WSL 2 (%6).</translation>
    </message>
    <message>
        <source>The environment %1 gets %2 %3 (%4) with Python %5.</source>
        <translation>El entorno %1 recibe %2 %3 (%4) con Python %5.</translation>
    </message>
    <message>
        <source>the default package index</source>
        <translation>el índice de paquetes predeterminado</translation>
    </message>
    <message>
        <source>On the machine itself, this page runs these steps:</source>
        <translation>En la propia máquina, esta página ejecuta estos pasos:</translation>
    </message>
    <message>
        <source>== create: a %1 environment %2 with Python %3</source>
        <translation>== crear: un entorno %1 %2 con Python %3</translation>
    </message>
    <message>
        <source>== install: %1 from %2</source>
        <translation>== instalar: %1 desde %2</translation>
    </message>
    <message>
        <source>== dlls: a start-up hook makes the NVIDIA wheels&apos; DLL folders visible to every start of the environment&apos;s Python</source>
        <translation>== dlls: un hook de inicio hace visibles las carpetas de DLL de los wheels de NVIDIA cada vez que se inicia el Python del entorno</translation>
    </message>
    <message>
        <source>== verify: import the framework in the new environment and check its build</source>
        <translation>== verificar: importar el framework en el nuevo entorno y comprobar su compilación</translation>
    </message>
    <message>
        <source>== constraints: pin that build, so later installs cannot replace it</source>
        <translation>== restricciones: fijar esa compilación para que instalaciones posteriores no la reemplacen</translation>
    </message>
    <message>
        <source>== register: record the environment (gpuwizard env list)</source>
        <translation>== registrar: anotar el entorno (gpuwizard env list)</translation>
    </message>
    <message>
        <source>the default index</source>
        <translation>el índice predeterminado</translation>
    </message>
    <message>
        <source>== creating %1 at %2 with %3 (%4), packages from %5</source>
        <translation>== creando %1 en %2 con %3 (%4), paquetes desde %5</translation>
    </message>
    <message>
        <source>== Python %1 is downloaded by uv from %2: none is installed here</source>
        <translation>== uv descarga Python %1 de %2: no hay ninguno instalado aquí</translation>
    </message>
    <message>
        <source>the framework</source>
        <translation>el framework</translation>
    </message>
    <message>
        <source>resolving</source>
        <translation>resolviendo</translation>
    </message>
    <message>
        <source>solving</source>
        <translation>resolviendo entorno</translation>
    </message>
    <message>
        <source>downloading</source>
        <translation>descargando</translation>
    </message>
    <message>
        <source>building</source>
        <translation>compilando</translation>
    </message>
    <message>
        <source>installing</source>
        <translation>instalando</translation>
    </message>
    <message>
        <source>installed</source>
        <translation>instalado</translation>
    </message>
    <message>
        <source>unpacking</source>
        <translation>desempaquetando</translation>
    </message>
    <message>
        <source>linking</source>
        <translation>enlazando</translation>
    </message>
    <message>
        <source>Package: %1%2, %3</source>
        <translation>Paquete: %1%2, %3</translation>
    </message>
</context>
<context>
    <name>InstallQuestion</name>
    <message>
        <source>Install</source>
        <translation>Instalar</translation>
    </message>
    <message>
        <source>Create the environment %1 now?</source>
        <translation>¿Crear ahora el entorno %1?</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>&amp;Instalar</translation>
    </message>
    <message>
        <source>&amp;Go back</source>
        <translation>&amp;Volver</translation>
    </message>
    <message>
        <source>Nothing is downloaded or written; the choices stay as they are.</source>
        <translation>No se descarga ni se escribe nada; las opciones se quedan como están.</translation>
    </message>
    <message>
        <source>Nothing is downloaded: the packages come only from %1 (%2 of wheels).</source>
        <translation>No se descarga nada: los paquetes vienen solo de %1 (%2 de wheels).</translation>
    </message>
    <message>
        <source>About %1 is downloaded (an estimate), from:</source>
        <translation>Se descargan unos %1 (una estimación), desde:</translation>
    </message>
    <message>
        <source>An index did not answer when the Choose page checked it: the install will probably fail. Go back to see why and the ways forward.</source>
        <translation>Un índice no respondió cuando la página Elegir lo comprobó: probablemente la instalación fallará. Vuelve atrás para ver por qué y las posibles soluciones.</translation>
    </message>
    <message>
        <source>The indexes are still being checked.</source>
        <translation>Los índices aún se están comprobando.</translation>
    </message>
    <message>
        <source>The environment needs about %1 of free disk.</source>
        <translation>El entorno necesita unos %1 de espacio libre en disco.</translation>
    </message>
    <message>
        <source>What changes on this machine:</source>
        <translation>Qué cambia en esta máquina:</translation>
    </message>
    <message>
        <source>You can stop it while it runs: what was made is then removed.</source>
        <translation>Puedes detenerla mientras se ejecuta: entonces se elimina lo que se haya creado.</translation>
    </message>
    <message>
        <source>%1 (GitHub&apos;s copy, if the first does not answer)</source>
        <translation>%1 (la copia de GitHub, si el primero no responde)</translation>
    </message>
    <message>
        <source>No Python %1 is installed here, so uv downloads one too, from:</source>
        <translation>Aquí no hay ningún Python %1 instalado, así que uv también descarga uno, de:</translation>
    </message>
    <message>
        <source>It is asked first when the install starts: if it does not answer, nothing is made.</source>
        <translation>Se consulta primero, al empezar la instalación: si no responde, no se crea nada.</translation>
    </message>
    <message>
        <source>%1 (PyPI)</source>
        <translation>%1 (PyPI)</translation>
    </message>
</context>
<context>
    <name>LiveTestPage</name>
    <message>
        <source>Test</source>
        <translation>Prueba</translation>
    </message>
    <message>
        <source>A small network trains on the GPU and on the CPU: does the GPU work, and how fast?</source>
        <translation>Una red pequeña entrena en la GPU y en la CPU: ¿funciona la GPU y a qué velocidad?</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: no test runs. On the machine itself, this page trains a small network in the new environment and shows the loss, the speed and the verdict.</source>
        <translation>Esta es una vista previa de un informe guardado: no se ejecuta ninguna prueba. En la propia máquina, esta página entrena una red pequeña en el nuevo entorno y muestra la pérdida, la velocidad y el veredicto.</translation>
    </message>
    <message>
        <source>Loss per training step</source>
        <translation>Pérdida por paso de entrenamiento</translation>
    </message>
    <message>
        <source>Waiting to start…</source>
        <translation>Esperando para empezar…</translation>
    </message>
    <message>
        <source>Test progress</source>
        <translation>Progreso de la prueba</translation>
    </message>
    <message>
        <source>&amp;Stop the test</source>
        <translation>&amp;Detener la prueba</translation>
    </message>
    <message>
        <source>Stop the running test</source>
        <translation>Detener la prueba en curso</translation>
    </message>
    <message>
        <source>&amp;Run again</source>
        <translation>&amp;Volver a ejecutar</translation>
    </message>
    <message>
        <source>Run the test again</source>
        <translation>Ejecutar la prueba de nuevo</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Veredicto</translation>
    </message>
    <message>
        <source>Nothing runs in a preview.</source>
        <translation>En una vista previa no se ejecuta nada.</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>Sin iniciar</translation>
    </message>
    <message>
        <source>Nothing to test</source>
        <translation>Nada que probar</translation>
    </message>
    <message>
        <source>There is no environment to test: the installation did not finish.</source>
        <translation>No hay ningún entorno que probar: la instalación no terminó.</translation>
    </message>
    <message>
        <source>Starting %1 in the environment…</source>
        <translation>Iniciando %1 en el entorno…</translation>
    </message>
    <message>
        <source>Stopping the test…</source>
        <translation>Deteniendo la prueba…</translation>
    </message>
    <message>
        <source>The test stopped</source>
        <translation>La prueba se detuvo</translation>
    </message>
    <message>
        <source>The test could not run: %1</source>
        <translation>No se pudo ejecutar la prueba: %1</translation>
    </message>
    <message>
        <source>The loss appears here as the network trains.</source>
        <translation>La pérdida aparece aquí a medida que la red entrena.</translation>
    </message>
    <message>
        <source>%1 (%2 s)</source>
        <translation>%1 (%2 s)</translation>
    </message>
    <message>
        <source>step %v of %m</source>
        <translation>paso %v de %m</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Terminada</translation>
    </message>
    <message>
        <source>Finished in %1 s</source>
        <translation>Terminada en %1 s</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Detenida</translation>
    </message>
    <message>
        <source>You stopped the test before it finished.</source>
        <translation>Detuviste la prueba antes de que terminara.</translation>
    </message>
    <message>
        <source>Run it again for a verdict.</source>
        <translation>Vuelve a ejecutarla para obtener un veredicto.</translation>
    </message>
    <message>
        <source>No training step ran.</source>
        <translation>No se ejecutó ningún paso de entrenamiento.</translation>
    </message>
    <message>
        <source>The loss fell from %1 to %2: the network learns.</source>
        <translation>La pérdida bajó de %1 a %2: la red aprende.</translation>
    </message>
    <message>
        <source>Why: this machine has no NVIDIA GPU the wizard could use, so the CPU is what there is. The environment works; training will be slower than on a GPU.</source>
        <translation>Motivo: esta máquina no tiene ninguna GPU NVIDIA que el asistente pueda usar, así que solo queda la CPU. El entorno funciona; el entrenamiento será más lento que en una GPU.</translation>
    </message>
    <message>
        <source>Why: the framework does not see the GPU. Below: the cause and the fix.</source>
        <translation>Motivo: el framework no ve la GPU. Abajo: la causa y la solución.</translation>
    </message>
    <message>
        <source>Why: the framework sees no GPU.</source>
        <translation>Motivo: el framework no ve ninguna GPU.</translation>
    </message>
    <message>
        <source>What failed, and what to do, is below.</source>
        <translation>Abajo se indica qué falló y qué hacer.</translation>
    </message>
    <message>
        <source>The test gave no reason; the full output is in the log.</source>
        <translation>La prueba no dio ningún motivo; la salida completa está en el registro.</translation>
    </message>
    <message>
        <source>Below: what may slow it down.</source>
        <translation>Abajo: lo que puede estar ralentizándola.</translation>
    </message>
    <message>
        <source>The test runs in the environment the previous page creates.</source>
        <translation>La prueba se ejecuta en el entorno que crea la página anterior.</translation>
    </message>
    <message>
        <source>Testing %1 in the environment %2 (%3).</source>
        <translation>Probando %1 en el entorno %2 (%3).</translation>
    </message>
</context>
<context>
    <name>LossChart</name>
    <message>
        <source>Training loss per step</source>
        <translation>Pérdida de entrenamiento por paso</translation>
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
        <translation>La pérdida aparece aquí a medida que la red entrena.</translation>
    </message>
    <message>
        <source>%1: %2 steps, loss from %3 to %4</source>
        <translation>%1: %2 pasos, pérdida de %3 a %4</translation>
    </message>
    <message>
        <source>training step</source>
        <translation>paso de entrenamiento</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>pérdida</translation>
    </message>
</context>
<context>
    <name>PathDiffView</name>
    <message>
        <source>Planned PATH, entry by entry: + added, − removed</source>
        <translation>PATH previsto, entrada por entrada: + añadida, − quitada</translation>
    </message>
    <message>
        <source>(empty entry)</source>
        <translation>(entrada vacía)</translation>
    </message>
    <message>
        <source>unchanged: %1</source>
        <translation>sin cambios: %1</translation>
    </message>
    <message>
        <source>added: %1</source>
        <translation>añadida: %1</translation>
    </message>
    <message>
        <source>removed: %1</source>
        <translation>quitada: %1</translation>
    </message>
</context>
<context>
    <name>PathEntriesView</name>
    <message>
        <source>PATH entries with their problems</source>
        <extracomment>The part of a folder that names its CUDA version (``CUDA<byte value="xb"/>12.1``, ``cuda-12.4``, ``CUDA/12.1``).</extracomment>
        <translation>Entradas de PATH con sus problemas</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>Entrada</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>Problema</translation>
    </message>
    <message>
        <source>System PATH</source>
        <translation>PATH del sistema</translation>
    </message>
    <message>
        <source>User PATH</source>
        <translation>PATH de usuario</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>sin valor</translation>
    </message>
    <message>
        <source>%1 · entries: %2</source>
        <translation>%1 · entradas: %2</translation>
    </message>
    <message>
        <source>(empty entry)</source>
        <translation>(entrada vacía)</translation>
    </message>
    <message>
        <source>An empty entry: two &apos;;&apos; in a row, or one at the end.</source>
        <translation>Una entrada vacía: dos &apos;;&apos; seguidos, o uno al final.</translation>
    </message>
    <message>
        <source>folder missing</source>
        <translation>falta la carpeta</translation>
    </message>
    <message>
        <source>duplicate</source>
        <translation>duplicada</translation>
    </message>
    <message>
        <source>other CUDA version first</source>
        <translation>otra versión de CUDA antes</translation>
    </message>
    <message>
        <source>REG_SZ with %VARS%</source>
        <translation>REG_SZ con %VARS%</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>vacía</translation>
    </message>
    <message>
        <source>Missing: this folder does not exist. It does no harm, but makes PATH longer.</source>
        <translation>Falta: esta carpeta no existe. No hace daño, pero alarga PATH.</translation>
    </message>
    <message>
        <source>Duplicate: this folder is on PATH earlier already (the system PATH comes first); only the first one counts.</source>
        <translation>Duplicada: esta carpeta ya aparece antes en PATH (el PATH del sistema va primero); solo cuenta la primera.</translation>
    </message>
    <message>
        <source>Other CUDA version first: an entry of another CUDA version comes earlier, so programs load that version&apos;s DLLs, not these.</source>
        <translation>Otra versión de CUDA antes: una entrada de otra versión de CUDA aparece antes, así que los programas cargan las DLL de esa versión, no estas.</translation>
    </message>
    <message>
        <source>REG_SZ with %VARS%: this PATH is stored as REG_SZ, which Windows never expands, so the %VARIABLE% stays literal text and the folder is never searched.</source>
        <translation>REG_SZ con %VARS%: este PATH está guardado como REG_SZ, que Windows nunca expande, así que la %VARIABLE% queda como texto literal y la carpeta nunca se busca.</translation>
    </message>
    <message>
        <source>Empty: harmless, an extra &apos;;&apos;.</source>
        <translation>Vacía: inofensiva, un &apos;;&apos; de más.</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>An entry of CUDA %1.</source>
        <translation>Una entrada de CUDA %1.</translation>
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
        <translation>Pon en PATH las carpetas que necesita el plan, de forma segura: ve el cambio antes y deshazlo cuando quieras.</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: nothing on this machine changes, so Apply and Undo are off.</source>
        <translation>Esta es una vista previa de un informe guardado: nada cambia en esta máquina, así que Aplicar y Deshacer están desactivados.</translation>
    </message>
    <message>
        <source>PATH now (system first, then user)</source>
        <translation>PATH actual (primero el del sistema, luego el de usuario)</translation>
    </message>
    <message>
        <source>Planned change</source>
        <translation>Cambio previsto</translation>
    </message>
    <message>
        <source>User PATH (you only)</source>
        <translation>PATH de usuario (solo tú)</translation>
    </message>
    <message>
        <source>System PATH (all users; admin)</source>
        <translation>PATH del sistema (todos los usuarios; admin.)</translation>
    </message>
    <message>
        <source>Which PATH to change</source>
        <translation>Qué PATH cambiar</translation>
    </message>
    <message>
        <source>Windows puts the system PATH before the user PATH. Changing the system PATH asks for administrator rights.</source>
        <translation>Windows pone el PATH del sistema antes que el PATH de usuario. Cambiar el PATH del sistema requiere permisos de administrador.</translation>
    </message>
    <message>
        <source>Keep them (after these)</source>
        <translation>Conservarlas (después de estas)</translation>
    </message>
    <message>
        <source>Move them to the end</source>
        <translation>Moverlas al final</translation>
    </message>
    <message>
        <source>Remove them</source>
        <translation>Quitarlas</translation>
    </message>
    <message>
        <source>What to do with other CUDA versions on PATH</source>
        <translation>Qué hacer con otras versiones de CUDA en PATH</translation>
    </message>
    <message>
        <source>Entries of another CUDA version: the first CUDA on PATH is the one programs load.</source>
        <translation>Entradas de otra versión de CUDA: la primera versión de CUDA en PATH es la que cargan los programas.</translation>
    </message>
    <message>
        <source>&amp;Add to:</source>
        <translation>Aña&amp;dir a:</translation>
    </message>
    <message>
        <source>Other &amp;CUDA:</source>
        <translation>Otras &amp;CUDA:</translation>
    </message>
    <message>
        <source>A&amp;pply</source>
        <translation>A&amp;plicar</translation>
    </message>
    <message>
        <source>Apply the planned PATH change</source>
        <translation>Aplicar el cambio previsto de PATH</translation>
    </message>
    <message>
        <source>Write the change, recorded in the PATH journal so that Undo can revert it exactly.</source>
        <translation>Escribe el cambio y lo anota en el historial de PATH para que Deshacer pueda revertirlo con exactitud.</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>Des&amp;hacer</translation>
    </message>
    <message>
        <source>Undo the last PATH change</source>
        <translation>Deshacer el último cambio de PATH</translation>
    </message>
    <message>
        <source>Put back the PATH as it was before the last change, exactly.</source>
        <translation>Restaura PATH exactamente como estaba antes del último cambio.</translation>
    </message>
    <message>
        <source>Working</source>
        <translation>Trabajando</translation>
    </message>
    <message>
        <source>The plan adds folders to PATH so that programs find %1.</source>
        <translation>El plan añade carpetas a PATH para que los programas encuentren %1.</translation>
    </message>
    <message>
        <source>The plan adds folders to PATH.</source>
        <translation>El plan añade carpetas a PATH.</translation>
    </message>
    <message>
        <source>Working on the registry snapshot %1.</source>
        <translation>Trabajando sobre la instantánea del registro %1.</translation>
    </message>
    <message>
        <source>Reading PATH…</source>
        <translation>Leyendo PATH…</translation>
    </message>
    <message>
        <source>Applying…</source>
        <translation>Aplicando…</translation>
    </message>
    <message>
        <source>Undoing…</source>
        <translation>Deshaciendo…</translation>
    </message>
    <message>
        <source>Checking the DLLs…</source>
        <translation>Comprobando las DLL…</translation>
    </message>
    <message>
        <source>This is a preview of a saved report: nothing on this machine changes, so Apply and Undo are off. A saved report does not hold that machine&apos;s PATH, so this page lists the folders the plan adds; on the machine itself it shows PATH entry by entry and the exact change.</source>
        <translation>Esta es una vista previa de un informe guardado: nada cambia en esta máquina, así que Aplicar y Deshacer están desactivados. Un informe guardado no contiene el PATH de esa máquina, así que esta página enumera las carpetas que añade el plan; en la propia máquina muestra PATH entrada por entrada y el cambio exacto.</translation>
    </message>
    <message>
        <source>system PATH</source>
        <translation>PATH del sistema</translation>
    </message>
    <message>
        <source>user PATH</source>
        <translation>PATH del usuario</translation>
    </message>
    <message>
        <source>The %1 gets these folders, in this order, before any other CUDA version:</source>
        <translation>Al %1 se añaden estas carpetas, en este orden, antes de cualquier otra versión de CUDA:</translation>
    </message>
    <message>
        <source>On the machine itself, changing the system PATH asks for administrator rights.</source>
        <translation>En la propia máquina, cambiar el PATH del sistema requiere permisos de administrador.</translation>
    </message>
    <message>
        <source>Something went wrong, and nothing was changed: %1</source>
        <translation>Algo salió mal y no se cambió nada: %1</translation>
    </message>
    <message>
        <source>PATH could not be read: %1</source>
        <translation>No se pudo leer PATH: %1</translation>
    </message>
    <message>
        <source>DLLs with the same name (cuDNN&apos;s, for one) load from the first folder on PATH. Set “%1” to “%2” (Windows asks for administrator rights when you apply), and “%3” to “%4” or “%5”, so that these folders come before the other version.</source>
        <translation>Las DLL con el mismo nombre (las de cuDNN, por ejemplo) se cargan desde la primera carpeta del PATH. Ponga “%1” en “%2” (Windows pide derechos de administrador al aplicar), y “%3” en “%4” o “%5”, para que estas carpetas vayan antes que la otra versión.</translation>
    </message>
</context>
<context>
    <name>PathResultBox</name>
    <message>
        <source>Result</source>
        <translation>Resultado</translation>
    </message>
    <message>
        <source>DLLs a program started now finds</source>
        <translation>DLL que encuentra un programa iniciado ahora</translation>
    </message>
    <message>
        <source>DLL</source>
        <translation>DLL</translation>
    </message>
    <message>
        <source>Where it loads from</source>
        <translation>Desde dónde se carga</translation>
    </message>
    <message>
        <source>Nothing was changed: %1</source>
        <translation>No se cambió nada: %1</translation>
    </message>
    <message>
        <source>system PATH</source>
        <translation>PATH del sistema</translation>
    </message>
    <message>
        <source>user PATH</source>
        <translation>PATH de usuario</translation>
    </message>
    <message>
        <source>Nothing to change: the %1 has the folders already.</source>
        <translation>Nada que cambiar: el %1 ya tiene las carpetas.</translation>
    </message>
    <message>
        <source>Undone: the %1 is back as it was before the change.</source>
        <translation>Deshecho: el %1 vuelve a estar como antes del cambio.</translation>
    </message>
    <message>
        <source>Done: the %1 is changed. The change is in the PATH journal; Undo reverts it.</source>
        <translation>Hecho: el %1 ha cambiado. El cambio está en el historial de PATH; Deshacer lo revierte.</translation>
    </message>
    <message>
        <source>This is a registry snapshot file: no program running here reads it. On the machine it belongs to, programs started after the change see it; those already open (terminals, VS Code, PyCharm, Jupyter) must be restarted.</source>
        <translation>Este es un archivo de instantánea del registro: ningún programa que se ejecute aquí lo lee. En la máquina a la que pertenece, los programas iniciados después del cambio lo ven; los que ya estén abiertos (terminales, VS Code, PyCharm, Jupyter) deben reiniciarse.</translation>
    </message>
    <message>
        <source>Checking from a new process which DLLs load…</source>
        <translation>Comprobando desde un proceso nuevo qué DLL se cargan…</translation>
    </message>
    <message>
        <source>DLLs a program started now finds: %1 of %2.</source>
        <translation>DLL que encuentra un programa iniciado ahora: %1 de %2.</translation>
    </message>
    <message>
        <source>found: %1</source>
        <translation>encontrada: %1</translation>
    </message>
    <message>
        <source>not found: %1</source>
        <translation>no encontrada: %1</translation>
    </message>
</context>
<context>
    <name>PlanPanel</name>
    <message>
        <source>What to look at</source>
        <translation>Qué revisar</translation>
    </message>
    <message>
        <source>Alternatives, best first</source>
        <translation>Alternativas, la mejor primero</translation>
    </message>
    <message>
        <source>Alternatives</source>
        <translation>Alternativas</translation>
    </message>
    <message>
        <source>Compatibility data</source>
        <translation>Datos de compatibilidad</translation>
    </message>
    <message>
        <source>The plan</source>
        <translation>El plan</translation>
    </message>
    <message>
        <source>Framework:</source>
        <translation>Framework:</translation>
    </message>
    <message>
        <source>Python:</source>
        <translation>Python:</translation>
    </message>
    <message>
        <source>CUDA / cuDNN:</source>
        <translation>CUDA / cuDNN:</translation>
    </message>
    <message>
        <source>CUDA is NVIDIA&apos;s platform for computing on the GPU; cuDNN is its library of deep-learning building blocks. A framework build is made for one CUDA version, and the driver must support it.</source>
        <translation>CUDA es la plataforma de NVIDIA para computar en la GPU; cuDNN es su biblioteca de componentes para deep learning. Cada compilación de un framework se hace para una versión de CUDA, y el controlador debe admitirla.</translation>
    </message>
    <message>
        <source>Driver:</source>
        <translation>Controlador:</translation>
    </message>
    <message>
        <source>The NVIDIA driver must be at least as new as the CUDA version of the build needs.</source>
        <translation>El controlador de NVIDIA debe ser al menos tan reciente como la versión de CUDA que necesita la compilación.</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>Entorno:</translation>
    </message>
    <message>
        <source>conda installs:</source>
        <translation>conda instala:</translation>
    </message>
    <message>
        <source>conda: an environment manager that can also install CUDA and cuDNN into the environment.</source>
        <translation>conda: un gestor de entornos que también puede instalar CUDA y cuDNN dentro del entorno.</translation>
    </message>
    <message>
        <source>pip installs:</source>
        <translation>pip instala:</translation>
    </message>
    <message>
        <source>Why:</source>
        <translation>Motivo:</translation>
    </message>
    <message>
        <source>What will change on this machine</source>
        <translation>Qué cambiará en esta máquina</translation>
    </message>
    <message>
        <source>The recommendation failed: %1</source>
        <translation>La recomendación falló: %1</translation>
    </message>
</context>
<context>
    <name>PlannedChangeView</name>
    <message>
        <source>This change cannot be made: %1</source>
        <translation>Este cambio no se puede hacer: %1</translation>
    </message>
    <message>
        <source>Windows will ask for administrator rights when you apply: the system PATH is shared by every user.</source>
        <translation>Windows pedirá permisos de administrador al aplicar: el PATH del sistema lo comparten todos los usuarios.</translation>
    </message>
    <message>
        <source>The wizard has administrator rights already: the system PATH is shared by every user.</source>
        <translation>El asistente ya tiene permisos de administrador: el PATH del sistema lo comparten todos los usuarios.</translation>
    </message>
    <message>
        <source>On the machine itself, changing the system PATH asks for administrator rights; this snapshot file needs none.</source>
        <translation>En la propia máquina, cambiar el PATH del sistema pide permisos de administrador; este archivo de instantánea no los necesita.</translation>
    </message>
    <message>
        <source>system PATH</source>
        <translation>PATH del sistema</translation>
    </message>
    <message>
        <source>user PATH</source>
        <translation>PATH de usuario</translation>
    </message>
    <message>
        <source>Nothing to change: the folders are on the %1 already.</source>
        <translation>Nada que cambiar: las carpetas ya están en el %1.</translation>
    </message>
    <message numerus="yes">
        <source>%n to add</source>
        <translation>
            <numerusform>%n por añadir</numerusform>
            <numerusform>%n por añadir</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to move</source>
        <translation>
            <numerusform>%n por mover</numerusform>
            <numerusform>%n por mover</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to remove</source>
        <translation>
            <numerusform>%n por quitar</numerusform>
            <numerusform>%n por quitar</numerusform>
        </translation>
    </message>
    <message>
        <source>The %1 after the change:</source>
        <translation>El %1 tras el cambio:</translation>
    </message>
    <message>
        <source>The %1 after the change (%2):</source>
        <translation>El %1 tras el cambio (%2):</translation>
    </message>
</context>
<context>
    <name>QtReportView</name>
    <message>
        <source>CUDA: three different numbers</source>
        <translation>CUDA: tres números distintos</translation>
    </message>
    <message>
        <source>Graphics hardware</source>
        <translation>Hardware gráfico</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nombre</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memoria</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>What to look at</source>
        <translation>Qué revisar</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Detalles</translation>
    </message>
    <message>
        <source>Ready for GPU training on %1.</source>
        <translation>Listo para entrenar en GPU con %1.</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is here, but GPU training does not work yet.</source>
        <translation>Hay una GPU NVIDIA, pero el entrenamiento en GPU aún no funciona.</translation>
    </message>
    <message>
        <source>%1 found: the next page checks which builds carry code for it.</source>
        <translation>Se encontró %1: la página siguiente comprueba qué compilaciones incluyen código para ella.</translation>
    </message>
    <message>
        <source>No NVIDIA GPU here: PyTorch and TensorFlow run on the CPU, with their CPU builds.</source>
        <translation>Aquí no hay GPU NVIDIA: PyTorch y TensorFlow funcionan en la CPU, con sus versiones para CPU.</translation>
    </message>
    <message>
        <source>No usable NVIDIA GPU: GPU training is not possible here yet.</source>
        <translation>No hay ninguna GPU NVIDIA utilizable: aquí aún no es posible entrenar en GPU.</translation>
    </message>
    <message>
        <source>No NVIDIA driver answered, so no CUDA version can run yet.</source>
        <translation>No respondió ningún controlador de NVIDIA, así que aún no puede ejecutarse ninguna versión de CUDA.</translation>
    </message>
    <message>
        <source>CUDA %1 or older (driver %2)</source>
        <translation>CUDA %1 o anterior (controlador %2)</translation>
    </message>
    <message>
        <source>Unknown: driver %1 does not report it</source>
        <translation>Desconocido: el controlador %1 no lo indica</translation>
    </message>
    <message>
        <source>Your driver supports</source>
        <translation>Tu controlador admite</translation>
    </message>
    <message>
        <source>A limit, not something installed: the newest CUDA a framework build may use (nvidia-smi calls it “CUDA Version”).</source>
        <translation>Un límite, no algo instalado: la versión de CUDA más reciente que puede usar una compilación de un framework (nvidia-smi la llama “CUDA Version”).</translation>
    </message>
    <message>
        <source>unknown version</source>
        <translation>versión desconocida</translation>
    </message>
    <message>
        <source>(first on PATH)</source>
        <translation>(primero en PATH)</translation>
    </message>
    <message>
        <source>(on PATH)</source>
        <translation>(en PATH)</translation>
    </message>
    <message>
        <source>None (PyTorch on Windows does not need one)</source>
        <translation>Ninguno (PyTorch en Windows no lo necesita)</translation>
    </message>
    <message>
        <source>Needed only to compile CUDA code, or for TensorFlow 2.10 or older in a venv without NVIDIA&apos;s CUDA wheels. PyTorch brings its own CUDA; TensorFlow 2.11+ uses the GPU only in WSL 2.</source>
        <translation>Solo se necesita para compilar código CUDA, o para TensorFlow 2.10 o anterior en un venv sin las wheels de CUDA de NVIDIA. PyTorch trae su propio CUDA; TensorFlow 2.11+ usa la GPU solo en WSL 2.</translation>
    </message>
    <message>
        <source>None (current frameworks have no CUDA build for macOS)</source>
        <translation>Ninguno (los frameworks actuales no tienen una versión con CUDA para macOS)</translation>
    </message>
    <message>
        <source>CUDA for macOS ended with CUDA 10.2; PyTorch and TensorFlow use the GPU of a Mac through Apple&apos;s Metal.</source>
        <translation>CUDA para macOS terminó con CUDA 10.2; PyTorch y TensorFlow usan la GPU de un Mac a través de Metal de Apple.</translation>
    </message>
    <message>
        <source>None (PyTorch and current TensorFlow on Linux do not need one)</source>
        <translation>Ninguno (PyTorch y el TensorFlow actual en Linux no lo necesitan)</translation>
    </message>
    <message>
        <source>CUDA toolkits on disk</source>
        <translation>CUDA Toolkits en el disco</translation>
    </message>
    <message>
        <source>Needed only for TensorFlow 2.10 or older on native Windows, or to compile CUDA code. PyTorch and TensorFlow 2.14+ on Linux bring their own CUDA.</source>
        <translation>Solo se necesita para TensorFlow 2.10 o anterior en Windows nativo, o para compilar código CUDA. PyTorch y TensorFlow 2.14+ en Linux traen su propio CUDA.</translation>
    </message>
    <message>
        <source>The framework brings</source>
        <translation>El framework trae</translation>
    </message>
    <message>
        <source>Chosen in the next step, to match the driver and the GPU</source>
        <translation>Se elige en el siguiente paso, según el controlador y la GPU</translation>
    </message>
    <message>
        <source>Must not be newer than what the driver supports, and must contain code for your GPU&apos;s compute capability.</source>
        <translation>No debe ser más reciente que lo que admite el controlador, y debe contener código para la capacidad de cómputo de tu GPU.</translation>
    </message>
    <message>
        <source>working</source>
        <translation>funciona</translation>
    </message>
    <message>
        <source>not responding</source>
        <translation>no responde</translation>
    </message>
    <message>
        <source>no driver</source>
        <translation>sin controlador</translation>
    </message>
    <message>
        <source>PCI bus %1</source>
        <translation>bus PCI %1</translation>
    </message>
    <message>
        <source>No graphics hardware was found</source>
        <translation>No se encontró hardware gráfico</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>Arquitectura</translation>
    </message>
    <message>
        <source>What a framework build must carry code for: the compute capability of an NVIDIA GPU (8.6 for the GeForce RTX 30 series), the target of an AMD GPU (gfx1100 for the Radeon RX 7900 series). A build runs only on the ones it was compiled for.</source>
        <translation>Aquello para lo que una compilación de un framework debe incluir código: la capacidad de cómputo de una GPU NVIDIA (8.6 para la serie GeForce RTX 30) o el destino de una GPU AMD (gfx1100 para la serie Radeon RX 7900). Una compilación solo funciona en aquellas para las que se compiló.</translation>
    </message>
    <message>
        <source>PCI id %1</source>
        <translation>ID PCI %1</translation>
    </message>
    <message>
        <source>Driver %1</source>
        <translation>Controlador %1</translation>
    </message>
    <message>
        <source>Kernel driver %1</source>
        <translation>Controlador del kernel %1</translation>
    </message>
    <message>
        <source>System</source>
        <translation>Sistema</translation>
    </message>
    <message>
        <source>Python %1 (%2-bit) at %3</source>
        <translation>Python %1 (%2 bits) en %3</translation>
    </message>
    <message>
        <source>No Python found; the wizard can provide one</source>
        <translation>No se encontró Python; el asistente puede proporcionar uno</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>Other Pythons</source>
        <translation>Otros Python</translation>
    </message>
    <message>
        <source>Environment tools</source>
        <translation>Herramientas de entornos</translation>
    </message>
    <message>
        <source>none found</source>
        <translation>no se encontró ninguna</translation>
    </message>
    <message>
        <source>cuDNN</source>
        <translation>cuDNN</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s deep-learning library. Frameworks bring their own, except TensorFlow 2.10 or older on Windows.</source>
        <translation>La biblioteca de deep learning de NVIDIA. Los frameworks traen la suya, excepto TensorFlow 2.10 o anterior en Windows.</translation>
    </message>
    <message>
        <source>on</source>
        <translation>activado</translation>
    </message>
    <message>
        <source>off</source>
        <translation>desactivado</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconocido</translation>
    </message>
    <message>
        <source>Long paths</source>
        <translation>Rutas largas</translation>
    </message>
</context>
<context>
    <name>SetupWizard</name>
    <message>
        <source>GPU Setup Wizard</source>
        <translation>Asistente de configuración de GPU</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>&amp;Instalar</translation>
    </message>
    <message>
        <source>Showing the saved report %1. Nothing on this machine will change.</source>
        <translation>Mostrando el informe guardado %1. No cambiará nada en esta máquina.</translation>
    </message>
</context>
<context>
    <name>SourceCheckView</name>
    <message>
        <source>Where the packages come from</source>
        <extracomment>Where the view sits in the answer while nothing stands in the way: after what will change. The person asked for PyPI&apos;s build (True) or PyTorch&apos;s index again (False).</extracomment>
        <translation>De dónde vienen los paquetes</translation>
    </message>
    <message>
        <source>Ask the i&amp;ndexes again</source>
        <extracomment>What asks an index (tests may hand in another; it asks nothing with GPUWIZARD_NO_INDEX_CHECK=1).</extracomment>
        <translation>Vo&amp;lver a consultar los índices</translation>
    </message>
    <message>
        <source>Ask again, for example after changing the proxy or mirror settings and restarting the wizard.</source>
        <translation>Volver a consultar, por ejemplo después de cambiar la configuración del proxy o de la réplica y reiniciar el asistente.</translation>
    </message>
    <message>
        <source>&amp;Switch to PyPI&apos;s build</source>
        <translation>U&amp;sar la compilación de PyPI</translation>
    </message>
    <message>
        <source>Install the same release as PyPI builds it, instead of from PyTorch&apos;s own index.</source>
        <translation>Instala la misma versión tal como la compila PyPI, en lugar de desde el índice propio de PyTorch.</translation>
    </message>
    <message>
        <source>Install stays off until the packages can be fetched: take one of these ways forward.</source>
        <translation>Instalar sigue desactivado hasta que se puedan obtener los paquetes: elija una de estas vías.</translation>
    </message>
    <message>
        <source>The package indexes could not be asked (%1); the install will say if one fails.</source>
        <translation>No se pudieron consultar los índices de paquetes (%1); la instalación indicará si alguno falla.</translation>
    </message>
    <message>
        <source>This mirror setting cannot be used: %1</source>
        <translation>Esta configuración de réplica no se puede usar: %1</translation>
    </message>
    <message>
        <source>Checking %1 …</source>
        <translation>Comprobando %1 …</translation>
    </message>
    <message>
        <source>The package indexes answer: the install can fetch its packages.</source>
        <translation>Los índices de paquetes responden: la instalación puede obtener sus paquetes.</translation>
    </message>
    <message>
        <source>Switch back to PyTorch&apos;s inde&amp;x</source>
        <translation>Volver al índice de PyTorc&amp;h</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>✓ %1: answers</source>
        <translation>✓ %1: responde</translation>
    </message>
</context>
<context>
    <name>StopQuestion</name>
    <message>
        <source>Stop the install</source>
        <translation>Detener la instalación</translation>
    </message>
    <message>
        <source>Stop the install?</source>
        <translation>¿Detener la instalación?</translation>
    </message>
    <message>
        <source>What was downloaded and made so far is removed.</source>
        <translation>Se elimina lo que se haya descargado y creado hasta ahora.</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Detener</translation>
    </message>
    <message>
        <source>&amp;Keep installing</source>
        <translation>&amp;Seguir instalando</translation>
    </message>
</context>
<context>
    <name>SummaryPage</name>
    <message>
        <source>Summary</source>
        <translation>Resumen</translation>
    </message>
    <message>
        <source>The verdict, and what to do next.</source>
        <translation>El veredicto y qué hacer a continuación.</translation>
    </message>
    <message>
        <source>Your environment</source>
        <translation>Tu entorno</translation>
    </message>
    <message>
        <source>Run this in a new terminal to use the environment.</source>
        <translation>Ejecuta esto en una terminal nueva para usar el entorno.</translation>
    </message>
    <message>
        <source>Select this interpreter in VS Code (Python: Select Interpreter) or PyCharm.</source>
        <translation>Selecciona este intérprete en VS Code (Python: Select Interpreter) o PyCharm.</translation>
    </message>
    <message>
        <source>&amp;Copy the interpreter path</source>
        <translation>&amp;Copiar la ruta del intérprete</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>Nombre:</translation>
    </message>
    <message>
        <source>Activate:</source>
        <translation>Activar:</translation>
    </message>
    <message>
        <source>Interpreter:</source>
        <translation>Intérprete:</translation>
    </message>
    <message>
        <source>Jupyter kernel:</source>
        <translation>Kernel de Jupyter:</translation>
    </message>
    <message>
        <source>Live test:</source>
        <translation>Prueba en vivo:</translation>
    </message>
    <message>
        <source>in PowerShell or cmd</source>
        <translation>en PowerShell o cmd</translation>
    </message>
    <message>
        <source>in %1&apos;s shell</source>
        <translation>en el shell de %1</translation>
    </message>
    <message>
        <source>PowerShell or cmd</source>
        <translation>PowerShell o cmd</translation>
    </message>
    <message>
        <source>then in %1</source>
        <translation>luego en %1</translation>
    </message>
    <message>
        <source>%1, %2 %3 in %4</source>
        <translation>%1, %2 %3 en %4</translation>
    </message>
    <message>
        <source>none (choose one on the Choose page next time)</source>
        <translation>ninguno (elige uno en la página Elegir la próxima vez)</translation>
    </message>
    <message>
        <source>(%1× the CPU)</source>
        <translation>(%1× la CPU)</translation>
    </message>
    <message>
        <source>%1: whether it trains is the live test&apos;s answer.</source>
        <translation>%1: la prueba en vivo dirá si entrena.</translation>
    </message>
    <message>
        <source>No NVIDIA GPU here: PyTorch and TensorFlow run on the CPU.</source>
        <translation>Aquí no hay GPU NVIDIA: PyTorch y TensorFlow funcionan en la CPU.</translation>
    </message>
    <message>
        <source>This machine cannot train on a GPU yet.</source>
        <translation>Esta máquina aún no puede entrenar en una GPU.</translation>
    </message>
    <message>
        <source>The way forward:</source>
        <translation>Cómo seguir:</translation>
    </message>
    <message>
        <source>Saved the system report to %1.</source>
        <translation>Se guardó el informe del sistema en %1.</translation>
    </message>
    <message>
        <source>The environment %1 is ready (not tested).</source>
        <translation>El entorno %1 está listo (sin probar).</translation>
    </message>
    <message>
        <source>Save a report</source>
        <translation>Guardar un informe</translation>
    </message>
    <message>
        <source>&amp;Save the system report…</source>
        <translation>&amp;Guardar el informe del sistema…</translation>
    </message>
    <message>
        <source>What was found on this machine, with the plan, environment and test the wizard made: a JSON file the wizard can open again to show this machine and its plan.</source>
        <translation>Lo que se encontró en esta máquina, con el plan, el entorno y la prueba que hizo el asistente: un archivo JSON que el asistente puede volver a abrir para mostrar esta máquina y su plan.</translation>
    </message>
    <message>
        <source>For someone helping you: the machine, PATH, the environments, the last tests and what is wrong, as a web page, Markdown or JSON, with your user name, home folder and GPU serial numbers replaced.</source>
        <translation>Para quien le ayude: la máquina, el PATH, los entornos, las últimas pruebas y lo que falla, como página web, Markdown o JSON, con su nombre de usuario, su carpeta personal y los números de serie de las GPU sustituidos.</translation>
    </message>
    <message>
        <source>The environment %1 is ready.</source>
        <translation>El entorno %1 está listo.</translation>
    </message>
    <message>
        <source>The environment %1 was made.</source>
        <translation>El entorno %1 se creó.</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>no ejecutada</translation>
    </message>
    <message>
        <source>Recorded as the last good state: start the wizard again after a driver or framework update, and it checks what changed.</source>
        <translation>Guardado como último estado correcto: vuelve a iniciar el asistente tras actualizar el controlador o el framework y comprobará qué cambió.</translation>
    </message>
    <message>
        <source>This machine is ready for GPU frameworks: %1.</source>
        <translation>Esta máquina está lista para frameworks de GPU: %1.</translation>
    </message>
    <message>
        <source>What to do first:</source>
        <translation>Qué hacer primero:</translation>
    </message>
    <message>
        <source>Worth a look:</source>
        <translation>Conviene revisar:</translation>
    </message>
    <message>
        <source>Nothing stands in the way.</source>
        <translation>No hay ningún obstáculo.</translation>
    </message>
    <message>
        <source>Save the system report</source>
        <translation>Guardar el informe del sistema</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>Archivos JSON (*.json)</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>No guardado</translation>
    </message>
    <message>
        <source>The report was not saved: %1</source>
        <translation>No se guardó el informe: %1</translation>
    </message>
</context>
<context>
    <name>SupportReportControl</name>
    <message>
        <source>Save a support re&amp;port…</source>
        <translation>Guardar un informe de so&amp;porte…</translation>
    </message>
    <message>
        <source>Save everything someone helping you needs (the machine, PATH, the environments, the last tests, what is wrong) as a web page, Markdown or JSON. GPU serial numbers and UUIDs, your user name and your home folder are replaced before it is written.</source>
        <translation>Guarda todo lo que necesita quien le ayude (el equipo, PATH, los entornos, las últimas pruebas, lo que falla) como página web, Markdown o JSON. Los números de serie y UUID de las GPU, su nombre de usuario y su carpeta personal se sustituyen antes de escribirlo.</translation>
    </message>
    <message>
        <source>Save a support report</source>
        <translation>Guardar un informe de soporte</translation>
    </message>
    <message>
        <source>Web page (*.html);;Markdown (*.md);;JSON (*.json)</source>
        <translation>Página web (*.html);;Markdown (*.md);;JSON (*.json)</translation>
    </message>
    <message>
        <source>Saving the support report…</source>
        <translation>Guardando el informe de soporte…</translation>
    </message>
    <message>
        <source>Saved to %1, with serial numbers, UUIDs, your user name and home folder replaced.</source>
        <translation>Guardado en %1, con los números de serie, los UUID, su nombre de usuario y su carpeta personal sustituidos.</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>No guardado</translation>
    </message>
    <message>
        <source>The support report was not saved: %1</source>
        <translation>El informe de soporte no se guardó: %1</translation>
    </message>
</context>
<context>
    <name>TestNumbers</name>
    <message>
        <source>Measurements</source>
        <translation>Mediciones</translation>
    </message>
    <message>
        <source>Framework:</source>
        <translation>Framework:</translation>
    </message>
    <message>
        <source>Framework build</source>
        <translation>Compilación del framework</translation>
    </message>
    <message>
        <source>GPU:</source>
        <translation>GPU:</translation>
    </message>
    <message>
        <source>The GPU the framework sees</source>
        <translation>La GPU que ve el framework</translation>
    </message>
    <message>
        <source>CPU:</source>
        <translation>CPU:</translation>
    </message>
    <message>
        <source>The CPU</source>
        <translation>La CPU</translation>
    </message>
    <message>
        <source>GPU samples/s:</source>
        <translation>Muestras/s en GPU:</translation>
    </message>
    <message>
        <source>Training samples per second on the GPU</source>
        <translation>Muestras de entrenamiento por segundo en la GPU</translation>
    </message>
    <message>
        <source>CPU samples/s:</source>
        <translation>Muestras/s en CPU:</translation>
    </message>
    <message>
        <source>Training samples per second on the CPU</source>
        <translation>Muestras de entrenamiento por segundo en la CPU</translation>
    </message>
    <message>
        <source>Speed-up:</source>
        <translation>Aceleración:</translation>
    </message>
    <message>
        <source>How many times faster the GPU trains than the CPU</source>
        <translation>Cuántas veces más rápido entrena la GPU que la CPU</translation>
    </message>
    <message>
        <source>Matrix multiply:</source>
        <translation>Multiplicación de matrices:</translation>
    </message>
    <message>
        <source>Matrix multiply rate on the GPU</source>
        <translation>Velocidad de multiplicación de matrices en la GPU</translation>
    </message>
    <message>
        <source>GPU utilisation:</source>
        <translation>Uso de la GPU:</translation>
    </message>
    <message>
        <source>GPU utilisation during the test</source>
        <translation>Uso de la GPU durante la prueba</translation>
    </message>
    <message>
        <source>GPU memory:</source>
        <translation>Memoria de la GPU:</translation>
    </message>
    <message>
        <source>GPU memory in use during the test</source>
        <translation>Memoria de la GPU en uso durante la prueba</translation>
    </message>
    <message>
        <source>GPU samples per second divided by CPU samples per second, same network and data.</source>
        <translation>Muestras por segundo en la GPU divididas entre muestras por segundo en la CPU, con la misma red y los mismos datos.</translation>
    </message>
    <message>
        <source>TFLOP/s: trillions of floating-point operations per second on large matrix multiplies.</source>
        <translation>TFLOP/s: billones de operaciones de coma flotante por segundo en multiplicaciones de matrices grandes.</translation>
    </message>
    <message>
        <source>Share of time the GPU was running work, as the NVIDIA driver reports it (NVML).</source>
        <translation>Porcentaje del tiempo en que la GPU estuvo ejecutando trabajo, según informa el controlador de NVIDIA (NVML).</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>— (needs both GPU and CPU)</source>
        <translation>— (requiere GPU y CPU)</translation>
    </message>
    <message numerus="yes">
        <source> (%n threads)</source>
        <translation>
            <numerusform> (%n hilo)</numerusform>
            <numerusform> (%n hilos)</numerusform>
        </translation>
    </message>
    <message>
        <source>none visible</source>
        <translation>ninguna visible</translation>
    </message>
    <message>
        <source>not measured: no GPU is used</source>
        <translation>sin medir: no se usa ninguna GPU</translation>
    </message>
    <message>
        <source>%1: %2 TFLOP/s</source>
        <translation>%1: %2 TFLOP/s</translation>
    </message>
    <message>
        <source>not measured: the wizard samples NVIDIA GPUs only</source>
        <translation>no medido: el asistente solo muestrea GPU de NVIDIA</translation>
    </message>
    <message>
        <source>no NVIDIA GPU on this machine</source>
        <translation>no hay GPU NVIDIA en esta máquina</translation>
    </message>
    <message>
        <source>not measured (the driver gave no samples)</source>
        <translation>sin medir (el controlador no dio muestras)</translation>
    </message>
    <message>
        <source>waiting for samples…</source>
        <translation>esperando muestras…</translation>
    </message>
    <message>
        <source>%1 % now, %2 % at most</source>
        <translation>%1 % ahora, %2 % como máximo</translation>
    </message>
    <message>
        <source>%1 % at most</source>
        <translation>%1 % como máximo</translation>
    </message>
    <message>
        <source>%1 MiB in use, %2 MiB at most</source>
        <translation>%1 MiB en uso, %2 MiB como máximo</translation>
    </message>
    <message>
        <source>%1 MiB at most</source>
        <translation>%1 MiB como máximo</translation>
    </message>
    <message>
        <source>ROCm build (HIP %1)</source>
        <translation>compilación ROCm (HIP %1)</translation>
    </message>
    <message>
        <source>Intel XPU build</source>
        <translation>compilación Intel XPU</translation>
    </message>
    <message>
        <source>Apple GPU through MPS (macOS %1)</source>
        <translation>GPU de Apple mediante MPS (macOS %1)</translation>
    </message>
    <message>
        <source>CUDA %1 build</source>
        <translation>Compilación CUDA %1</translation>
    </message>
    <message>
        <source>CPU build (no CUDA)</source>
        <translation>Compilación para CPU (sin CUDA)</translation>
    </message>
    <message>
        <source>build unknown</source>
        <translation>compilación desconocida</translation>
    </message>
</context>
<context>
    <name>VerifyPage</name>
    <message>
        <source>Verify your setup</source>
        <translation>Verifica tu configuración</translation>
    </message>
    <message>
        <source>Is everything still as it was when it last worked? Driver, GPUs, environments, PATH.</source>
        <translation>¿Sigue todo como cuando funcionó por última vez? Controlador, GPU, entornos, PATH.</translation>
    </message>
    <message>
        <source>Set &amp;up again &gt;</source>
        <translation>&amp;Volver a configurar &gt;</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Comprobando…</translation>
    </message>
    <message>
        <source>Checks</source>
        <translation>Comprobaciones</translation>
    </message>
    <message>
        <source>Verification in progress</source>
        <translation>Verificación en curso</translation>
    </message>
    <message>
        <source>&amp;Check again</source>
        <translation>&amp;Comprobar de nuevo</translation>
    </message>
    <message>
        <source>Run the checks again</source>
        <translation>Ejecutar de nuevo las comprobaciones</translation>
    </message>
    <message>
        <source>&amp;Repair…</source>
        <translation>&amp;Reparar…</translation>
    </message>
    <message>
        <source>Set the broken environment up again</source>
        <translation>Volver a configurar el entorno dañado</translation>
    </message>
    <message>
        <source>Sets the broken environment up again with the same framework, version and name: the wizard shows the plan first, and puts the old one back if the new one fails.</source>
        <translation>Vuelve a configurar el entorno dañado con el mismo framework, versión y nombre: el asistente muestra antes el plan y restaura el anterior si el nuevo falla.</translation>
    </message>
    <message>
        <source>The checks could not run: %1</source>
        <translation>No se pudieron ejecutar las comprobaciones: %1</translation>
    </message>
    <message>
        <source>Nothing to verify: the wizard has not set up anything on this machine yet.</source>
        <translation>No hay nada que verificar: el asistente aún no ha configurado nada en esta máquina.</translation>
    </message>
    <message>
        <source>Press Set up to start: nothing was checked or recorded.</source>
        <translation>Pulsa Configurar para empezar: no se comprobó ni se registró nada.</translation>
    </message>
    <message>
        <source>Set &amp;up &gt;</source>
        <translation>Con&amp;figurar &gt;</translation>
    </message>
    <message>
        <source>Nothing could be checked this time, so nothing was recorded.</source>
        <translation>Esta vez no se pudo comprobar nada, así que no se registró nada.</translation>
    </message>
    <message numerus="yes">
        <source>%n check(s) failed: something broke since the setup last worked.</source>
        <translation>
            <numerusform>Falló %n comprobación: algo se rompió desde la última vez que la configuración funcionó.</numerusform>
            <numerusform>Fallaron %n comprobaciones: algo se rompió desde la última vez que la configuración funcionó.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Everything works; %n thing(s) changed since the last good state.</source>
        <translation>
            <numerusform>Todo funciona; %n cosa cambió desde el último estado correcto.</numerusform>
            <numerusform>Todo funciona; %n cosas cambiaron desde el último estado correcto.</numerusform>
        </translation>
    </message>
    <message>
        <source>Everything works as it did.</source>
        <translation>Todo funciona como antes.</translation>
    </message>
    <message>
        <source>Compared with the last good state, recorded %1.</source>
        <translation>Comparado con el último estado correcto (registrado: %1).</translation>
    </message>
    <message>
        <source>No good state was recorded yet: the environments were checked against what the wizard made.</source>
        <translation>Aún no se ha registrado ningún estado correcto: los entornos se compararon con lo que creó el asistente.</translation>
    </message>
    <message>
        <source>This state is now the last good one.</source>
        <translation>Este estado es ahora el último correcto.</translation>
    </message>
    <message>
        <source>as before</source>
        <translation>igual que antes</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>cambiado</translation>
    </message>
    <message>
        <source>broken</source>
        <translation>dañado</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>sin comprobar</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(ninguno)</translation>
    </message>
    <message>
        <source>not installed</source>
        <comment>a framework, as a check found it</comment>
        <translation>no instalado</translation>
    </message>
    <message>
        <source>fails</source>
        <comment>importing a framework, as a check found it</comment>
        <translation>falla</translation>
    </message>
    <message>
        <source>does not run</source>
        <comment>an environment&apos;s Python, as a check found it</comment>
        <translation>no se ejecuta</translation>
    </message>
    <message>
        <source>runs</source>
        <comment>an environment&apos;s Python, as a check found it</comment>
        <translation>se ejecuta</translation>
    </message>
    <message>
        <source>on PATH</source>
        <comment>a folder, as a check found it</comment>
        <translation>en el PATH</translation>
    </message>
    <message>
        <source>not on PATH</source>
        <comment>a folder, as a check found it</comment>
        <translation>no está en el PATH</translation>
    </message>
    <message>
        <source>missing</source>
        <comment>a constraints file, as a check found it</comment>
        <translation>falta</translation>
    </message>
    <message>
        <source>no pin</source>
        <comment>a constraints file without the framework&apos;s line</comment>
        <translation>sin fijar</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Set up your GPU for deep learning</source>
        <translation>Configura tu GPU para deep learning</translation>
    </message>
    <message>
        <source>From “I have a GPU” to “my framework trains on it”, with proof.</source>
        <translation>De “tengo una GPU” a “mi framework entrena en ella”, con pruebas.</translation>
    </message>
    <message>
        <source>Look at this machine: the GPU (NVIDIA, AMD, Intel or Apple), its driver, CUDA and cuDNN on disk, and Python.</source>
        <translation>Examinar esta máquina: la GPU (NVIDIA, AMD, Intel o Apple), su controlador, CUDA y cuDNN en el disco, y Python.</translation>
    </message>
    <message>
        <source>Recommend a PyTorch or TensorFlow setup that fits, and explain every “no”.</source>
        <translation>Recomendar una configuración de PyTorch o TensorFlow adecuada y explicar cada “no”.</translation>
    </message>
    <message>
        <source>Create an environment with the right build, and fix PATH where it is needed.</source>
        <translation>Crear un entorno con la compilación correcta y arreglar PATH donde haga falta.</translation>
    </message>
    <message>
        <source>Train a small network on the GPU and on the CPU, and show the numbers.</source>
        <translation>Entrenar una red pequeña en la GPU y en la CPU, y mostrar los números.</translation>
    </message>
    <message>
        <source>This wizard will:</source>
        <translation>Este asistente va a:</translation>
    </message>
    <message>
        <source>What the wizard will do</source>
        <translation>Lo que hará el asistente</translation>
    </message>
    <message>
        <source>Nothing on this machine changes until you have seen exactly what will change and agreed. Every change can be undone.</source>
        <translation>Nada cambia en esta máquina hasta que hayas visto exactamente qué cambiará y lo hayas aceptado. Todo cambio se puede deshacer.</translation>
    </message>
    <message>
        <source>You are looking at a saved system report: the wizard only shows what it would do. Nothing on this machine will change.</source>
        <translation>Estás viendo un informe del sistema guardado: el asistente solo muestra lo que haría. No cambiará nada en esta máquina.</translation>
    </message>
</context>
<context>
    <name>WheelFolderStatus</name>
    <message>
        <source>What the folder of wheels holds</source>
        <extracomment>How long the status waits after the last change (typing a path) before checking.</extracomment>
        <translation>Qué contiene la carpeta de wheels</translation>
    </message>
    <message>
        <source>Command that downloads what the folder lacks</source>
        <translation>Comando que descarga lo que le falta a la carpeta</translation>
    </message>
    <message>
        <source>Cop&amp;y</source>
        <translation>Copia&amp;r</translation>
    </message>
    <message>
        <source>Copy the download command</source>
        <translation>Copiar el comando de descarga</translation>
    </message>
    <message>
        <source>Chec&amp;k again</source>
        <translation>Co&amp;mprobar de nuevo</translation>
    </message>
    <message>
        <source>Check the folder again, for example after adding wheels to it.</source>
        <translation>Comprobar de nuevo la carpeta, por ejemplo después de añadirle wheels.</translation>
    </message>
    <message>
        <source>The folder could not be checked (%1); the install will say what is missing.</source>
        <translation>No se pudo comprobar la carpeta (%1); la instalación indicará qué falta.</translation>
    </message>
    <message>
        <source>Checking the folder against the plan…</source>
        <translation>Comprobando la carpeta frente al plan…</translation>
    </message>
    <message>
        <source>The folder holds %1 %2, which can be installed instead.</source>
        <translation>La carpeta contiene %1 %2, que puede instalarse en su lugar.</translation>
    </message>
    <message>
        <source>&amp;Use %1 %2</source>
        <translation>&amp;Usar %1 %2</translation>
    </message>
    <message>
        <source>Or fetch what is missing into the folder.</source>
        <translation>O descargue lo que falta en la carpeta.</translation>
    </message>
    <message>
        <source>Fetch what is missing into the folder.</source>
        <translation>Descargue lo que falta en la carpeta.</translation>
    </message>
</context>
<context>
    <name>WindowsStepQuestion</name>
    <message>
        <source>Make WSL ready</source>
        <translation>Preparar WSL</translation>
    </message>
    <message>
        <source>Run %1 as administrator now?</source>
        <translation>¿Ejecutar %1 como administrador ahora?</translation>
    </message>
    <message>
        <source>Windows asks for the administrator first. It downloads WSL and %1; %1 then asks for a Linux user name and password in its window, and Windows may ask to restart: then open the wizard again and install the same plan.</source>
        <translation>Windows pide primero permiso de administrador. Descarga WSL y %1; después %1 pide un nombre de usuario y una contraseña de Linux en su ventana, y Windows puede pedir reiniciar: entonces abre de nuevo el asistente e instala el mismo plan.</translation>
    </message>
    <message>
        <source>Run %1 now?</source>
        <translation>¿Ejecutar %1 ahora?</translation>
    </message>
    <message>
        <source>It runs in a window of its own: answer it there if it asks (a new distribution asks for a Linux user name and password). Then the environment is made.</source>
        <translation>Se ejecuta en una ventana propia: responde allí si pregunta algo (una distribución nueva pide un nombre de usuario y una contraseña de Linux). Después se crea el entorno.</translation>
    </message>
    <message>
        <source>&amp;Run it</source>
        <translation>&amp;Ejecutarlo</translation>
    </message>
    <message>
        <source>&amp;Not now</source>
        <translation>&amp;Ahora no</translation>
    </message>
</context>
<context>
    <name>apply_stages</name>
    <message>
        <source>Detecting this machine</source>
        <extracomment>The stages of a run, in their order. How a run ended: set up (``ok``), shown without changing anything (``preview``), the check failed (``problem``), a step failed and this run&apos;s changes were undone (``rolled_back``), or stopped by the person (``cancelled``). The translation context of :data:`STAGE_WORDS`. Each stage in a few words.</extracomment>
        <translation>Detectando esta máquina</translation>
    </message>
    <message>
        <source>Planning the setup</source>
        <translation>Planificando la configuración</translation>
    </message>
    <message>
        <source>Asking the package indexes</source>
        <translation>Consultando los índices de paquetes</translation>
    </message>
    <message>
        <source>Changing PATH</source>
        <translation>Cambiando PATH</translation>
    </message>
    <message>
        <source>Making the environment</source>
        <translation>Creando el entorno</translation>
    </message>
    <message>
        <source>Running the live test</source>
        <translation>Ejecutando la prueba en vivo</translation>
    </message>
</context>
<context>
    <name>env_phases</name>
    <message>
        <source>Checking the environment&apos;s folder…</source>
        <extracomment>The steps of a creation, in the order they can run. ``check`` is before the first step (an interrupted creation settled, the folder checked again); ``dlls`` only on Windows with NVIDIA&apos;s CUDA wheels; ``rollback`` after a failure or a cancel. The translation context of :data:`PHASE_WORDS`. Each phase in a few words. ``{module}`` is the framework&apos;s module (``torch``).</extracomment>
        <translation>Comprobando la carpeta del entorno…</translation>
    </message>
    <message>
        <source>Moving the existing environment aside…</source>
        <translation>Apartando el entorno existente…</translation>
    </message>
    <message>
        <source>Creating the environment…</source>
        <translation>Creando el entorno…</translation>
    </message>
    <message>
        <source>Adding pip…</source>
        <translation>Añadiendo pip…</translation>
    </message>
    <message>
        <source>Installing the packages…</source>
        <translation>Instalando los paquetes…</translation>
    </message>
    <message>
        <source>Making the NVIDIA wheels&apos; DLL folders visible…</source>
        <translation>Haciendo visibles las carpetas de DLL de los wheels de NVIDIA…</translation>
    </message>
    <message>
        <source>Checking that {module} imports in the new environment…</source>
        <translation>Comprobando que {module} se importa en el nuevo entorno…</translation>
    </message>
    <message>
        <source>Pinning the build so later installs cannot replace it…</source>
        <translation>Fijando la compilación para que instalaciones posteriores no la reemplacen…</translation>
    </message>
    <message>
        <source>Setting the environment&apos;s variables…</source>
        <translation>Configurando las variables del entorno…</translation>
    </message>
    <message>
        <source>Registering the Jupyter kernel…</source>
        <translation>Registrando el kernel de Jupyter…</translation>
    </message>
    <message>
        <source>Recording the environment…</source>
        <translation>Anotando el entorno…</translation>
    </message>
    <message>
        <source>Something went wrong: removing what was made…</source>
        <translation>Algo salió mal: quitando lo creado…</translation>
    </message>
</context>
<context>
    <name>findings</name>
    <message>
        <source>system</source>
        <comment>the PATH&apos;s scope, as in &apos;the system PATH&apos;</comment>
        <translation>del sistema</translation>
    </message>
    <message>
        <source>user</source>
        <comment>the PATH&apos;s scope, as in &apos;the user PATH&apos;</comment>
        <translation>de usuario</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>Problema</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Advertencia</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>Nota</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found on this machine.</source>
        <translation>No se encontró ninguna GPU NVIDIA en esta máquina.</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found; the graphics hardware is: {names}.</source>
        <translation>No se encontró ninguna GPU NVIDIA; el hardware gráfico es: {names}.</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present ({names}), but no working NVIDIA driver answers.</source>
        <translation>Hay una GPU NVIDIA ({names}), pero no responde ningún controlador de NVIDIA que funcione.</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present ({names}), but it is driven by the open-source &apos;nouveau&apos; driver, which has no CUDA.</source>
        <translation>Hay una GPU NVIDIA ({names}), pero la controla el controlador de código abierto &apos;nouveau&apos;, que no tiene CUDA.</translation>
    </message>
    <message>
        <source>This looks like a container, and the NVIDIA driver library is not visible inside it.</source>
        <translation>Esto parece un contenedor, y la biblioteca del controlador de NVIDIA no es visible dentro de él.</translation>
    </message>
    <message>
        <source>Start the container with GPU access (&apos;docker run --gpus all ...&apos;, which needs the NVIDIA Container Toolkit on the host), and check that &apos;nvidia-smi&apos; works on the host.</source>
        <translation>Inicia el contenedor con acceso a la GPU (&apos;docker run --gpus all ...&apos;, que requiere NVIDIA Container Toolkit en el host) y comprueba que &apos;nvidia-smi&apos; funcione en el host.</translation>
    </message>
    <message>
        <source>This is WSL 2, but no NVIDIA driver is passed through from Windows (nothing answers in /usr/lib/wsl/lib).</source>
        <translation>Esto es WSL 2, pero Windows no transfiere ningún controlador de NVIDIA (nada responde en /usr/lib/wsl/lib).</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present ({names}), but the NVIDIA driver does not answer.</source>
        <translation>Hay una GPU NVIDIA ({names}), pero el controlador de NVIDIA no responde.</translation>
    </message>
    <message>
        <source>The NVIDIA driver library and the loaded kernel driver have different versions (NVML: &apos;Driver/library version mismatch&apos;).</source>
        <translation>La biblioteca del controlador de NVIDIA y el controlador del kernel cargado tienen versiones distintas (NVML: &apos;Driver/library version mismatch&apos;).</translation>
    </message>
    <message>
        <source>This happens after a driver update without a restart. Restart the computer; if it persists, reinstall the NVIDIA driver.</source>
        <translation>Esto ocurre tras actualizar el controlador sin reiniciar. Reinicia el equipo; si persiste, reinstala el controlador de NVIDIA.</translation>
    </message>
    <message>
        <source>The NVIDIA driver refused access to the GPU (NVML: no permission).</source>
        <translation>El controlador de NVIDIA denegó el acceso a la GPU (NVML: sin permiso).</translation>
    </message>
    <message>
        <source>Check that your user may open /dev/nvidia* (often the &apos;video&apos; group on Linux), or ask the machine&apos;s administrator.</source>
        <translation>Comprueba que tu usuario pueda abrir /dev/nvidia* (a menudo, el grupo &apos;video&apos; en Linux), o consulta al administrador de la máquina.</translation>
    </message>
    <message>
        <source>The operating system blocked access to the GPU (NVML: &apos;GPU access blocked by the operating system&apos;).</source>
        <translation>El sistema operativo bloqueó el acceso a la GPU (NVML: &apos;GPU access blocked by the operating system&apos;).</translation>
    </message>
    <message>
        <source>In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;); where cgroup device rules apply, they must allow /dev/nvidia*.</source>
        <translation>En un contenedor, inícialo con acceso a la GPU (&apos;docker run --gpus all ...&apos;); donde se apliquen reglas de dispositivos de cgroup, deben permitir /dev/nvidia*.</translation>
    </message>
    <message>
        <source>WSL blocked access to the GPU (NVML: &apos;GPU access blocked by the operating system&apos;).</source>
        <translation>WSL bloqueó el acceso a la GPU (NVML: &apos;GPU access blocked by the operating system&apos;).</translation>
    </message>
    <message>
        <source>This happens when a Linux NVIDIA driver package (such as nvidia-utils-*) was installed inside WSL (microsoft/WSL#9166). Remove it, then run &apos;wsl --shutdown&apos; in Windows: the Windows driver provides the GPU to WSL 2.</source>
        <translation>Esto ocurre cuando se instaló un paquete de controlador NVIDIA para Linux (como nvidia-utils-*) dentro de WSL (microsoft/WSL#9166). Quítalo y luego ejecuta &apos;wsl --shutdown&apos; en Windows: el controlador de Windows proporciona la GPU a WSL 2.</translation>
    </message>
    <message>
        <source>The NVIDIA management library could not be used: {detail}.</source>
        <translation>No se pudo usar la biblioteca de administración de NVIDIA: {detail}.</translation>
    </message>
    <message>
        <source>GPU {index} did not answer the driver ({reason}).</source>
        <translation>La GPU {index} no respondió al controlador ({reason}).</translation>
    </message>
    <message>
        <source>The other GPUs are reported normally. A GPU that is &apos;lost&apos; usually needs a restart of the machine; if it recurs, check its power cables, cooling and the system log (Xid errors), and contact the machine&apos;s administrator.</source>
        <translation>Las demás GPU se informan con normalidad. Una GPU &apos;perdida&apos; (&apos;lost&apos;) suele requerir reiniciar la máquina; si se repite, revisa sus cables de alimentación, la refrigeración y el registro del sistema (errores Xid), y contacta con el administrador de la máquina.</translation>
    </message>
    <message>
        <source>Driver {driver} did not report the highest CUDA version it supports (it predates that NVML query).</source>
        <translation>El controlador {driver} no informó la versión de CUDA más alta que admite (es anterior a esa consulta de NVML).</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver. Current framework builds use CUDA 11 or newer, which needs driver 450.80.02 or newer on Linux and 452.39 or newer on Windows (NVIDIA CUDA Toolkit release notes, minor-version compatibility table).</source>
        <translation>Actualiza el controlador de NVIDIA. Las compilaciones actuales de los frameworks usan CUDA 11 o posterior, que requiere el controlador 450.80.02 o posterior en Linux y 452.39 o posterior en Windows (notas de la versión de NVIDIA CUDA Toolkit, tabla de compatibilidad de versiones menores).</translation>
    </message>
    <message>
        <source>macOS has no CUDA: neither PyTorch nor TensorFlow ships CUDA builds for it.</source>
        <translation>macOS no tiene CUDA: ni PyTorch ni TensorFlow publican compilaciones CUDA para él.</translation>
    </message>
    <message>
        <source>This is WSL 1, which cannot use the GPU.</source>
        <translation>Esto es WSL 1, que no puede usar la GPU.</translation>
    </message>
    <message>
        <source>Convert the distribution to WSL 2: in Windows, run &apos;wsl --set-version &lt;distro&gt; 2&apos; (list distributions with &apos;wsl -l -v&apos;).</source>
        <translation>Convierte la distribución a WSL 2: en Windows, ejecuta &apos;wsl --set-version &lt;distro&gt; 2&apos; (lista las distribuciones con &apos;wsl -l -v&apos;).</translation>
    </message>
    <message>
        <source>A Linux NVIDIA driver library is installed inside WSL ({path}).</source>
        <translation>Hay una biblioteca del controlador NVIDIA para Linux instalada dentro de WSL ({path}).</translation>
    </message>
    <message>
        <source>Inside WSL 2 the Windows driver provides the GPU; a Linux driver installed in the distribution can shadow it and break GPU access. Remove the Linux driver packages (keep the CUDA toolkit if you need it) (NVIDIA CUDA on WSL User Guide).</source>
        <translation>Dentro de WSL 2, el controlador de Windows proporciona la GPU; un controlador de Linux instalado en la distribución puede ocultarlo y romper el acceso a la GPU. Quita los paquetes del controlador de Linux (conserva el CUDA Toolkit si lo necesitas) (NVIDIA CUDA on WSL User Guide).</translation>
    </message>
    <message>
        <source>The &apos;tensorflow-gpu&apos; package was removed; &apos;tensorflow&apos; is the GPU package.</source>
        <translation>El paquete &apos;tensorflow-gpu&apos; se retiró; &apos;tensorflow&apos; es el paquete con GPU.</translation>
    </message>
    <message>
        <source>Since December 2022 &apos;pip install tensorflow-gpu&apos; gets an empty package that fails on install. The plan installs &apos;tensorflow&apos; instead (the same package since TensorFlow 2.1).</source>
        <translation>Desde diciembre de 2022, &apos;pip install tensorflow-gpu&apos; obtiene un paquete vacío que falla al instalarse. El plan instala &apos;tensorflow&apos; en su lugar (el mismo paquete desde TensorFlow 2.1).</translation>
    </message>
    <message>
        <source>TensorFlow {version} has no GPU support on native Windows: {last} was the last release with it.</source>
        <translation>TensorFlow {version} no admite GPU en Windows nativo: {last} fue la última versión que la admitía.</translation>
    </message>
    <message>
        <source>Use TensorFlow {last} on Windows (CUDA {last_cuda}, cuDNN {last_cudnn}), or TensorFlow {version} inside WSL 2, which uses this GPU through the Windows driver, or the CPU build.</source>
        <translation>Usa TensorFlow {last} en Windows (CUDA {last_cuda}, cuDNN {last_cudnn}), o TensorFlow {version} dentro de WSL 2, que usa esta GPU a través del controlador de Windows, o la compilación para CPU.</translation>
    </message>
    <message>
        <source>NVIDIA driver {driver} is older than the {min_driver} that {build} needs.</source>
        <translation>El controlador de NVIDIA {driver} es anterior al {min_driver} que necesita {build}.</translation>
    </message>
    <message>
        <source>No NVIDIA driver answers, so no GPU build can run yet.</source>
        <translation>No responde ningún controlador de NVIDIA, así que aún no puede ejecutarse ninguna compilación para GPU.</translation>
    </message>
    <message>
        <source>{framework} {version} has no build for {gpu} (compute capability {capability}): its GPU builds carry code for {architectures}.</source>
        <translation>{framework} {version} no tiene compilación para {gpu} (capacidad de cómputo {capability}): sus compilaciones para GPU incluyen código para {architectures}.</translation>
    </message>
    <message>
        <source>Installing it anyway ends in &apos;no kernel image is available for execution on the device&apos;. {instead}</source>
        <translation>Si lo instalas de todos modos, terminará en &apos;no kernel image is available for execution on the device&apos;. {instead}</translation>
    </message>
    <message>
        <source>{framework} {version} bundles {library} {library_version}, which no longer supports {gpu} (compute capability {capability}; NVIDIA&apos;s support matrix lists {minimum} and newer).</source>
        <translation>{framework} {version} incluye {library} {library_version}, que ya no admite {gpu} (capacidad de cómputo {capability}; la matriz de compatibilidad de NVIDIA indica {minimum} o superior).</translation>
    </message>
    <message>
        <source>Its kernels would load, but {library} calls fail on this GPU. {instead}</source>
        <translation>Sus kernels se cargarían, pero las llamadas a {library} fallan en esta GPU. {instead}</translation>
    </message>
    <message>
        <source>{framework} {version} is published ({index}), but its build matrix is not in the compatibility data yet.</source>
        <translation>{framework} {version} está publicado ({index}), pero su matriz de compilaciones aún no figura en los datos de compatibilidad.</translation>
    </message>
    <message>
        <source>Which GPUs, drivers and Pythons its builds support is not verified, so the plan stays on {plan}. The data is updated weekly: run &apos;gpuwizard recommend --refresh&apos; later.</source>
        <translation>No está verificado qué GPU, controladores y versiones de Python admiten sus compilaciones, así que el plan se queda en {plan}. Los datos se actualizan cada semana: ejecute &apos;gpuwizard recommend --refresh&apos; más adelante.</translation>
    </message>
    <message>
        <source>Which GPUs, drivers and Pythons its builds support is not verified, so this is the newest verified plan instead: {plan}. Run &apos;gpuwizard recommend --refresh&apos; later for {version}.</source>
        <translation>No está verificado qué GPU, controladores y versiones de Python admiten sus compilaciones, así que este es el plan verificado más reciente: {plan}. Ejecute &apos;gpuwizard recommend --refresh&apos; más adelante para {version}.</translation>
    </message>
    <message>
        <source>{framework} {version} is newer than the compatibility data knows, and the package index could not be asked whether it exists.</source>
        <translation>{framework} {version} es más reciente de lo que conocen los datos de compatibilidad, y no se pudo consultar al índice de paquetes si existe.</translation>
    </message>
    <message>
        <source>This is the newest verified plan instead: {plan}. With network, &apos;gpuwizard recommend --refresh&apos; checks the index and fetches newer data.</source>
        <translation>Este es el plan verificado más reciente: {plan}. Con red, &apos;gpuwizard recommend --refresh&apos; consulta el índice y descarga datos más recientes.</translation>
    </message>
    <message>
        <source>{build} has no code for {gpu} (compute capability {capability}); the plan uses the other GPUs.</source>
        <translation>{build} no tiene código para {gpu} (capacidad de cómputo {capability}); el plan usa las demás GPU.</translation>
    </message>
    <message>
        <source>Hide that GPU from the framework (CUDA_VISIBLE_DEVICES={visible}), or it may fail with &apos;no kernel image is available&apos; when code lands on it.</source>
        <translation>Oculta esa GPU al framework (CUDA_VISIBLE_DEVICES={visible}), o puede fallar con &apos;no kernel image is available&apos; cuando se le asigne código.</translation>
    </message>
    <message>
        <source>The compute capability of {gpu} is not known, so build support was not checked.</source>
        <translation>No se conoce la capacidad de cómputo de {gpu}, así que no se comprobó la compatibilidad de la compilación.</translation>
    </message>
    <message>
        <source>Run the wizard on the machine itself (with the NVIDIA driver installed) for a checked recommendation; the live test will show whether the build runs.</source>
        <translation>Ejecuta el asistente en la propia máquina (con el controlador de NVIDIA instalado) para obtener una recomendación comprobada; la prueba en vivo mostrará si la compilación funciona.</translation>
    </message>
    <message>
        <source>{build} carries no machine code for {gpu} (compute capability {capability}); it runs through PTX the driver compiles at first use.</source>
        <translation>{build} no incluye código máquina para {gpu} (capacidad de cómputo {capability}); se ejecuta mediante PTX, que el controlador compila en el primer uso.</translation>
    </message>
    <message>
        <source>The first run is slower (compiling can take minutes; the result is cached). The live test checks that it works.</source>
        <translation>La primera ejecución es más lenta (la compilación puede tardar minutos; el resultado se guarda en caché). La prueba en vivo comprueba que funciona.</translation>
    </message>
    <message>
        <source>{framework} {version} supports Python {python_range}, not Python {python}.</source>
        <translation>{framework} {version} admite Python {python_range}, no Python {python}.</translation>
    </message>
    <message>
        <source>pip would answer &apos;No matching distribution found&apos;. The plan uses Python {chosen} instead, in its own environment; your other Pythons stay as they are.</source>
        <translation>pip respondería &apos;No matching distribution found&apos;. En su lugar, el plan usa Python {chosen}, en su propio entorno; tus otros Python quedan como están.</translation>
    </message>
    <message>
        <source>{build} brings its own CUDA {cuda} and cuDNN: no CUDA toolkit is needed, only the driver.</source>
        <translation>{build} trae su propio CUDA {cuda} y cuDNN: no hace falta el CUDA Toolkit, solo el controlador.</translation>
    </message>
    <message>
        <source>Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed. Toolkits already on disk are not used by it.</source>
        <translation>No instales un CUDA Toolkit ni cuDNN para ella, y no hacen falta cambios en PATH. No usa los toolkits que ya haya en el disco.</translation>
    </message>
    <message>
        <source>conda-forge supplies CUDA {cuda} and cuDNN {cudnn} inside the environment for {build}: no system CUDA toolkit is needed.</source>
        <translation>conda-forge proporciona CUDA {cuda} y cuDNN {cudnn} dentro del entorno para {build}: no hace falta un CUDA Toolkit en el sistema.</translation>
    </message>
    <message>
        <source>Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed: activating the environment makes its DLLs visible.</source>
        <translation>No instales un CUDA Toolkit ni cuDNN para ella, y no hacen falta cambios en PATH: al activar el entorno, sus DLL quedan visibles.</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s CUDA {cuda_wheels} and cuDNN {cudnn_wheels} wheels bring the DLLs {build} loads into the environment: no CUDA toolkit or cuDNN download is needed, only the driver.</source>
        <translation>Los wheels de CUDA {cuda_wheels} y cuDNN {cudnn_wheels} de NVIDIA traen al entorno las DLL que carga {build}: no hace falta el CUDA Toolkit ni descargar cuDNN, solo el controlador.</translation>
    </message>
    <message>
        <source>Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed: the environment&apos;s Python finds the DLLs however it is started, activated or not.</source>
        <translation>No instales un CUDA Toolkit ni cuDNN para ella, y no hacen falta cambios en PATH: el Python del entorno encuentra las DLL se inicie como se inicie, con el entorno activado o no.</translation>
    </message>
    <message>
        <source>{build} needs a CUDA {cuda} toolkit on the system, and none was found.</source>
        <translation>{build} necesita un CUDA Toolkit {cuda} en el sistema, y no se encontró ninguno.</translation>
    </message>
    <message>
        <source>Install CUDA {cuda} from NVIDIA&apos;s CUDA Toolkit Archive (https://developer.nvidia.com/cuda-toolkit-archive), or choose conda, which supplies CUDA and cuDNN inside the environment.</source>
        <translation>Instala CUDA {cuda} desde el CUDA Toolkit Archive de NVIDIA (https://developer.nvidia.com/cuda-toolkit-archive), o elige conda, que proporciona CUDA y cuDNN dentro del entorno.</translation>
    </message>
    <message>
        <source>{build} needs cuDNN {cudnn} on the system, and none was found.</source>
        <translation>{build} necesita cuDNN {cudnn} en el sistema, y no se encontró.</translation>
    </message>
    <message>
        <source>Download cuDNN {cudnn} for CUDA {cuda} from NVIDIA&apos;s cuDNN archive (https://developer.nvidia.com/rdp/cudnn-archive) and unzip it, or choose conda, which supplies it inside the environment.</source>
        <translation>Descarga cuDNN {cudnn} para CUDA {cuda} desde el archivo de cuDNN de NVIDIA (https://developer.nvidia.com/rdp/cudnn-archive) y descomprímelo, o elige conda, que lo proporciona dentro del entorno.</translation>
    </message>
    <message>
        <source>Several CUDA versions are on PATH: {versions}. The first one, {first}, wins.</source>
        <translation>Hay varias versiones de CUDA en PATH: {versions}. Gana la primera, {first}.</translation>
    </message>
    <message>
        <source>Programs that load CUDA from PATH (TensorFlow 2.10 and older on Windows, nvcc) get {first}. Keep only the version your framework needs on PATH, or let the wizard put the right one first (it keeps a backup and can undo).</source>
        <translation>Los programas que cargan CUDA desde PATH (TensorFlow 2.10 y anteriores en Windows, nvcc) obtienen {first}. Deja en PATH solo la versión que necesita tu framework, o deja que el asistente ponga primero la correcta (guarda una copia de seguridad y puede deshacerlo).</translation>
    </message>
    <message>
        <source>CUDA_PATH points to CUDA {cuda_path_version}, but PATH reaches CUDA {first} first.</source>
        <translation>CUDA_PATH apunta a CUDA {cuda_path_version}, pero PATH llega antes a CUDA {first}.</translation>
    </message>
    <message>
        <source>Build tools follow CUDA_PATH and programs follow PATH, so they can use different CUDA versions. Make them agree if you build CUDA code.</source>
        <translation>Las herramientas de compilación siguen CUDA_PATH y los programas siguen PATH, así que pueden usar versiones de CUDA distintas. Haz que coincidan si compilas código CUDA.</translation>
    </message>
    <message>
        <source>The Python at {executable} is the Microsoft Store build.</source>
        <translation>El Python de {executable} es la versión de Microsoft Store.</translation>
    </message>
    <message>
        <source>The Store build redirects some folders and is known to break DLL loading for CUDA (TensorFlow issues #48868, #61438). Let the wizard create the environment with a python.org or uv-managed Python instead.</source>
        <translation>La versión de Store redirige algunas carpetas y se sabe que rompe la carga de DLL de CUDA (issues de TensorFlow #48868, #61438). Deja que el asistente cree el entorno con un Python de python.org o gestionado por uv.</translation>
    </message>
    <message>
        <source>The Python at {executable} is a 32-bit build.</source>
        <translation>El Python de {executable} es una compilación de 32 bits.</translation>
    </message>
    <message>
        <source>PyTorch and TensorFlow publish 64-bit packages only, so pip reports &apos;No matching distribution&apos;. Use a 64-bit Python; the wizard can provide one.</source>
        <translation>PyTorch y TensorFlow solo publican paquetes de 64 bits, así que pip indica &apos;No matching distribution&apos;. Usa un Python de 64 bits; el asistente puede proporcionarte uno.</translation>
    </message>
    <message>
        <source>No Python interpreter was found on PATH.</source>
        <translation>No se encontró ningún intérprete de Python en PATH.</translation>
    </message>
    <message>
        <source>That is fine: the wizard can create the environment with a Python that uv downloads, or with conda.</source>
        <translation>No pasa nada: el asistente puede crear el entorno con un Python que descarga uv, o con conda.</translation>
    </message>
    <message>
        <source>Part of the detection failed: {step} ({error}).</source>
        <translation>Parte de la detección falló: {step} ({error}).</translation>
    </message>
    <message>
        <source>The rest of the report is still right; only this part is missing. Please attach the output of &apos;gpuwizard detect --json&apos; to a bug report.</source>
        <translation>El resto del informe sigue siendo correcto; solo falta esta parte. Adjunta la salida de &apos;gpuwizard detect --json&apos; a un informe de error.</translation>
    </message>
    <message>
        <source>Windows long-path support is off (LongPathsEnabled is not 1).</source>
        <translation>La compatibilidad con rutas largas de Windows está desactivada (LongPathsEnabled no es 1).</translation>
    </message>
    <message>
        <source>Installing TensorFlow can fail with &apos;No such file or directory&apos; on deep paths. Either enable long paths (an administrator sets HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled to 1, as the TensorFlow install guide says), or keep the environment in a short folder such as C:\envs.</source>
        <translation>La instalación de TensorFlow puede fallar con &apos;No such file or directory&apos; en rutas profundas. Activa las rutas largas (un administrador establece HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled en 1, como indica la guía de instalación de TensorFlow) o deja el entorno en una carpeta corta, como C:\envs.</translation>
    </message>
    <message>
        <source>The {scope} PATH is stored as REG_SZ but holds %VARIABLE% references: {variables}.</source>
        <translation>El PATH {scope} está guardado como REG_SZ pero contiene referencias %VARIABLE%: {variables}.</translation>
    </message>
    <message>
        <source>Windows expands %VARIABLES% only in REG_EXPAND_SZ values, so these entries reach programs as literal text and their folders are never searched. Repair it: &apos;gpuwizard path repair --scope {scope}&apos; rewrites the same value as REG_EXPAND_SZ (journaled; &apos;gpuwizard path undo&apos; reverts it).</source>
        <translation>Windows solo expande %VARIABLES% en valores REG_EXPAND_SZ, así que estas entradas llegan a los programas como texto literal y sus carpetas nunca se buscan. Repáralo: &apos;gpuwizard path repair --scope {scope}&apos; reescribe el mismo valor como REG_EXPAND_SZ (queda en el historial; &apos;gpuwizard path undo&apos; lo revierte).</translation>
    </message>
    <message>
        <source>The system PATH already holds CUDA {other_versions}, and Windows puts the system PATH before the user PATH, so programs find that CUDA before {version}.</source>
        <translation>El PATH del sistema ya contiene CUDA {other_versions}, y Windows pone el PATH del sistema antes que el PATH de usuario, así que los programas encuentran ese CUDA antes que CUDA {version}.</translation>
    </message>
    <message>
        <source>DLLs with the same name (cuDNN&apos;s, for one) load from the first folder on PATH. Add the folders to the system PATH instead (--scope system, with the administrator&apos;s consent), or remove the other version from the system PATH.</source>
        <translation>Las DLL con el mismo nombre (las de cuDNN, por ejemplo) se cargan desde la primera carpeta de PATH. Añade las carpetas al PATH del sistema en su lugar (--scope system, con el consentimiento del administrador), o quita la otra versión del PATH del sistema.</translation>
    </message>
    <message>
        <source>The {scope} PATH names folders that do not exist: {entries}.</source>
        <translation>El PATH {scope} incluye carpetas que no existen: {entries}.</translation>
    </message>
    <message>
        <source>They do no harm but make PATH longer; software that was uninstalled often leaves them behind. &apos;gpuwizard path remove&apos; removes them (with undo).</source>
        <translation>No hacen daño, pero alargan PATH; el software desinstalado suele dejarlas atrás. &apos;gpuwizard path remove&apos; las quita (se puede deshacer).</translation>
    </message>
    <message>
        <source>The {scope} PATH names some folders more than once: {entries}.</source>
        <translation>El PATH {scope} incluye algunas carpetas más de una vez: {entries}.</translation>
    </message>
    <message>
        <source>Only the first one counts. Duplicates make PATH longer, and it cannot grow past 32,767 characters.</source>
        <translation>Solo cuenta la primera. Los duplicados alargan PATH, y no puede superar los 32 767 caracteres.</translation>
    </message>
    <message>
        <source>Programs that are already running keep the PATH they started with.</source>
        <translation>Los programas que ya se están ejecutando conservan el PATH con el que se iniciaron.</translation>
    </message>
    <message>
        <source>Windows told Explorer about the change, so programs started from now on see it. Close and reopen terminals, VS Code, PyCharm, Jupyter and Anaconda Prompt that are open now: {programs}.</source>
        <translation>Windows notificó el cambio al Explorador, así que los programas que se inicien a partir de ahora lo verán. Cierra y vuelve a abrir los terminales, VS Code, PyCharm, Jupyter y Anaconda Prompt que estén abiertos ahora: {programs}.</translation>
    </message>
    <message>
        <source>No TensorFlow build uses this GPU; the CPU build works. Ask the wizard for a PyTorch plan: it says whether PyTorch uses this GPU.</source>
        <translation>Ninguna compilación de TensorFlow usa esta GPU; la compilación para CPU funciona. Pide al asistente un plan de PyTorch: dice si PyTorch usa esta GPU.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s own packages have no build for this GPU. {package} is its vendor&apos;s, and the wizard does not plan it: it comes from outside the package indexes the wizard installs from, or without a table of the TensorFlow releases it fits. Install it by hand following the vendor&apos;s guide, or ask the wizard for a PyTorch plan: it says whether PyTorch uses this GPU.</source>
        <translation>Los paquetes propios de TensorFlow no tienen compilación para esta GPU. {package} es del fabricante, y el asistente no lo planifica: viene de fuera de los índices de paquetes desde los que instala el asistente, o sin una tabla de las versiones de TensorFlow con las que encaja. Instálalo a mano siguiendo la guía del fabricante, o pide al asistente un plan de PyTorch: dice si PyTorch usa esta GPU.</translation>
    </message>
    <message>
        <source>PyTorch {first} and newer use the Apple GPU only on macOS {minimum}; this Mac has {macos}, so the plan is PyTorch {version} on the Apple GPU.</source>
        <translation>PyTorch {first} y posteriores usan la GPU de Apple solo en macOS {minimum}; este Mac tiene {macos}, así que el plan es PyTorch {version} en la GPU de Apple.</translation>
    </message>
    <message>
        <source>Update macOS to {minimum} or newer for the newest PyTorch releases on the GPU.</source>
        <translation>Actualiza macOS a {minimum} o posterior para las versiones más nuevas de PyTorch en la GPU.</translation>
    </message>
    <message>
        <source>A library the GPU needs could not be loaded: {libraries}.</source>
        <translation>No se pudo cargar una biblioteca que necesita la GPU: {libraries}.</translation>
    </message>
    <message>
        <source>Frameworks load CUDA and cuDNN from their own packages or from the library search path (PATH on Windows, LD_LIBRARY_PATH on Linux). Install the CUDA and cuDNN versions your framework build expects and put their folders on that path, or use an environment that brings its own copies (PyTorch wheels, &apos;tensorflow[and-cuda]&apos; on Linux, conda). If this machine has no NVIDIA GPU, the framework runs on the CPU and this can be ignored.</source>
        <translation>Los frameworks cargan CUDA y cuDNN desde sus propios paquetes o desde la ruta de búsqueda de bibliotecas (PATH en Windows, LD_LIBRARY_PATH en Linux). Instala las versiones de CUDA y cuDNN que espera tu compilación del framework y pon sus carpetas en esa ruta, o usa un entorno que traiga sus propias copias (wheels de PyTorch, &apos;tensorflow[and-cuda]&apos; en Linux, conda). Si esta máquina no tiene GPU NVIDIA, el framework se ejecuta en la CPU y puedes ignorar esto.</translation>
    </message>
    <message>
        <source>A library the GPU needs could not be loaded: {libraries} (part of {components}).</source>
        <translation>No se pudo cargar una biblioteca que necesita la GPU: {libraries} (parte de {components}).</translation>
    </message>
    <message>
        <source>Install {components} as your framework build expects and put its folder on the library search path (the bin folder on PATH on Windows, LD_LIBRARY_PATH on Linux), or use an environment that brings its own copies (PyTorch wheels, &apos;tensorflow[and-cuda]&apos; on Linux, conda). TensorFlow 2.10, the last with GPU support on native Windows, needs CUDA 11.2 and cuDNN 8.1. If this machine has no NVIDIA GPU, the framework runs on the CPU and this can be ignored.</source>
        <translation>Instala {components} como espera tu compilación del framework y pon su carpeta en la ruta de búsqueda de bibliotecas (la carpeta bin en PATH en Windows, LD_LIBRARY_PATH en Linux), o usa un entorno que traiga sus propias copias (wheels de PyTorch, &apos;tensorflow[and-cuda]&apos; en Linux, conda). TensorFlow 2.10, el último con GPU en Windows nativo, necesita CUDA 11.2 y cuDNN 8.1. Si esta máquina no tiene GPU NVIDIA, el framework se ejecuta en la CPU y puedes ignorar esto.</translation>
    </message>
    <message>
        <source>The NVIDIA driver library could not be loaded ({libraries}): no NVIDIA driver is visible here.</source>
        <translation>No se pudo cargar la biblioteca del controlador de NVIDIA ({libraries}): aquí no hay ningún controlador de NVIDIA visible.</translation>
    </message>
    <message>
        <source>TensorFlow could not load all its GPU libraries, so it skipped the GPU and runs on the CPU.</source>
        <translation>TensorFlow no pudo cargar todas sus bibliotecas de GPU, así que omitió la GPU y se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>On Linux, TensorFlow 2.14 and newer install the CUDA libraries with pip: &apos;pip install tensorflow[and-cuda]&apos; (and LD_LIBRARY_PATH should not point to another CUDA). Older releases need the CUDA and cuDNN versions listed for them in TensorFlow&apos;s tested build configurations. The lines above this message name the missing libraries.</source>
        <translation>En Linux, TensorFlow 2.14 y posteriores instalan las bibliotecas de CUDA con pip: &apos;pip install tensorflow[and-cuda]&apos; (y LD_LIBRARY_PATH no debe apuntar a otro CUDA). Las versiones anteriores necesitan las versiones de CUDA y cuDNN indicadas para ellas en las configuraciones de compilación probadas de TensorFlow. Las líneas anteriores a este mensaje indican las bibliotecas que faltan.</translation>
    </message>
    <message>
        <source>On native Windows, TensorFlow 2.10 is the last release with GPU support: it needs CUDA 11.2 and cuDNN 8.1 with their bin folders on PATH (or in a conda environment: &apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;). TensorFlow 2.11 and newer use the GPU only inside WSL 2.</source>
        <translation>En Windows nativo, TensorFlow 2.10 es la última versión con GPU: necesita CUDA 11.2 y cuDNN 8.1 con sus carpetas bin en PATH (o en un entorno de conda: &apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;). TensorFlow 2.11 y posteriores solo usan la GPU dentro de WSL 2.</translation>
    </message>
    <message>
        <source>Uninstall torch and install a CUDA build from the index that fits your driver, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (on Windows, torch from PyPI is CPU-only). macOS has no CUDA build: on a Mac, use its GPU through the &apos;mps&apos; device instead of &apos;cuda&apos; (Apple silicon; macOS 14 or newer for PyTorch 2.10 and later). Without a GPU, run the code on the CPU instead (device &apos;cpu&apos;).</source>
        <translation>Desinstala torch e instala una compilación CUDA del índice que corresponda a tu controlador, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (en Windows, torch de PyPI es solo para CPU). macOS no tiene compilación CUDA: en un Mac, usa su GPU mediante el dispositivo &apos;mps&apos; en lugar de &apos;cuda&apos; (Apple silicon; macOS 14 o posterior para PyTorch 2.10 y posteriores). Sin GPU, ejecuta el código en la CPU (dispositivo &apos;cpu&apos;).</translation>
    </message>
    <message>
        <source>No PyTorch build for macOS uses CUDA, so installing another one will not help. Use the Mac&apos;s own GPU through the &apos;mps&apos; device instead of &apos;cuda&apos; (torch.device(&apos;mps&apos;); torch.backends.mps.is_available() tells whether it works: Apple silicon; macOS 14 or newer for PyTorch 2.10 and later), or the CPU. Many programs have an option for it (--device mps, --cpu); code that calls torch.cuda functions directly must be changed to do so.</source>
        <translation>Ninguna compilación de PyTorch para macOS usa CUDA, así que instalar otra no ayudará. Usa la GPU del propio Mac mediante el dispositivo &apos;mps&apos; en lugar de &apos;cuda&apos; (torch.device(&apos;mps&apos;); torch.backends.mps.is_available() indica si funciona: Apple silicon; macOS 14 o posterior para PyTorch 2.10 y posteriores), o la CPU. Muchos programas tienen una opción para ello (--device mps, --cpu); el código que llama directamente a funciones de torch.cuda debe cambiarse para hacerlo.</translation>
    </message>
    <message>
        <source>The installed PyTorch has no Intel GPU (XPU) support (&apos;Torch not compiled with XPU enabled&apos;): it is a CPU or CUDA build.</source>
        <translation>El PyTorch instalado no es compatible con GPU de Intel (XPU) (&apos;Torch not compiled with XPU enabled&apos;): es una compilación para CPU o CUDA.</translation>
    </message>
    <message>
        <source>Install PyTorch&apos;s XPU build, for Intel Arc and Core Ultra GPUs on Linux and Windows with Intel&apos;s graphics driver: &apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos; (PyTorch&apos;s &apos;Getting Started on Intel GPU&apos;). Or run on the CPU.</source>
        <translation>Instala la compilación XPU de PyTorch, para GPU Intel Arc y Core Ultra en Linux y Windows con el controlador gráfico de Intel: &apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos; (&apos;Getting Started on Intel GPU&apos; de PyTorch). O ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>The installed build has no code for this GPU (&apos;no kernel image is available for execution on the device&apos;).</source>
        <translation>La compilación instalada no tiene código para esta GPU (&apos;no kernel image is available for execution on the device&apos;).</translation>
    </message>
    <message>
        <source>{gpu} (CUDA capability {capability}) is not supported by the installed PyTorch build.</source>
        <translation>{gpu} (capacidad CUDA {capability}) no es compatible con la compilación de PyTorch instalada.</translation>
    </message>
    <message>
        <source>Install a build that includes your GPU&apos;s architecture; &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; shows it. GPUs older than Turing (compute capability below 7.5: GTX 10-series, Titan V) are only in PyTorch&apos;s CUDA 12.6 builds: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;. RTX 50-series GPUs (Blackwell, 12.0) need PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;. If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild or reinstall it for this GPU. &apos;gpuwizard diagnose LOG --system REPORT&apos; names the exact build for a machine.</source>
        <translation>Instala una compilación que incluya la arquitectura de tu GPU; &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; la muestra. Las GPU anteriores a Turing (capacidad de cómputo inferior a 7.5: GTX serie 10, Titan V) solo están en las compilaciones de PyTorch para CUDA 12.6: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;. Las GPU RTX serie 50 (Blackwell, 12.0) necesitan PyTorch 2.7 o posterior desde un índice de CUDA 12.8 o posterior, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;. Si el error procede de una extensión compilada por separado (detectron2, mamba-ssm, flash-attn), vuelve a compilarla o reinstálala para esta GPU. &apos;gpuwizard diagnose LOG --system REPORT&apos; indica la compilación exacta para una máquina.</translation>
    </message>
    <message>
        <source>The installed build has no code for this GPU (compute capability {capability}): &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>La compilación instalada no tiene código para esta GPU (capacidad de cómputo {capability}): &apos;no kernel image is available for execution on the device&apos;.</translation>
    </message>
    <message>
        <source>GPUs older than Turing (compute capability below 7.5: GTX 900 and 10-series, Titan V) are only in PyTorch&apos;s CUDA 12.6 builds, not in the CUDA 12.8 and newer ones: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (PyTorch 2.14 is the last release with such a build). If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild it for this GPU.</source>
        <translation>Las GPU anteriores a Turing (capacidad de cómputo inferior a 7.5: GTX serie 900 y serie 10, Titan V) solo están en las compilaciones de PyTorch para CUDA 12.6, no en las de CUDA 12.8 y posteriores: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (PyTorch 2.14 es la última versión con una compilación así). Si el error procede de una extensión compilada por separado (detectron2, mamba-ssm, flash-attn), vuelve a compilarla para esta GPU.</translation>
    </message>
    <message>
        <source>Kepler GPUs (compute capability 3.x) are only in old PyTorch releases&apos; CUDA 11 builds, which also need a driver that serves them. &apos;gpuwizard recommend --framework pytorch&apos; on that machine (or &apos;gpuwizard diagnose LOG --system REPORT&apos;) names the newest one that fits; otherwise use the CPU build.</source>
        <translation>Las GPU Kepler (capacidad de cómputo 3.x) solo están en las compilaciones para CUDA 11 de versiones antiguas de PyTorch, que además necesitan un controlador que admita esas GPU. &apos;gpuwizard recommend --framework pytorch&apos; en esa máquina (o &apos;gpuwizard diagnose LOG --system REPORT&apos;) indica la más reciente que sirve; si no hay ninguna, usa la compilación para CPU.</translation>
    </message>
    <message>
        <source>Every current PyTorch CUDA build (cu126, cu128 and newer) includes compute capability {capability}, so the code that failed is older or was built apart: a PyTorch from before this GPU&apos;s generation (Ampere needs 1.7.1 or newer, built for CUDA 11.0 or newer), or an extension compiled for other GPUs (detectron2, mamba-ssm, flash-attn, bitsandbytes, a custom CUDA op). Install a current PyTorch (&apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;), then rebuild the extension for this GPU, for example with TORCH_CUDA_ARCH_LIST set to {capability}.</source>
        <translation>Todas las compilaciones CUDA actuales de PyTorch (cu126, cu128 y más nuevas) incluyen la capacidad de cómputo {capability}, así que el código que falló es más antiguo o se compiló aparte: un PyTorch anterior a la generación de esta GPU (Ampere necesita 1.7.1 o más nuevo, compilado para CUDA 11.0 o más nuevo) o una extensión compilada para otras GPU (detectron2, mamba-ssm, flash-attn, bitsandbytes, una operación CUDA propia). Instala un PyTorch actual (&apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;) y vuelve a compilar la extensión para esta GPU, por ejemplo con TORCH_CUDA_ARCH_LIST definido como {capability}.</translation>
    </message>
    <message>
        <source>Blackwell GPUs (RTX 50-series: 12.0; B200: 10.0) need PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;, with a driver of the 570 series or newer. If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild it for this GPU.</source>
        <translation>Las GPU Blackwell (RTX serie 50: 12.0; B200: 10.0) necesitan PyTorch 2.7 o posterior desde un índice de CUDA 12.8 o posterior, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;, con un controlador de la serie 570 o posterior. Si el error procede de una extensión compilada por separado (detectron2, mamba-ssm, flash-attn), vuelve a compilarla para esta GPU.</translation>
    </message>
    <message>
        <source>Install a PyTorch build whose list of architectures includes {capability}: GPUs older than Turing are only in the CUDA 12.6 builds (.../whl/cu126), RTX 50-series GPUs only in the CUDA 12.8 and newer ones (.../whl/cu128), for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;. Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>Instala una compilación de PyTorch cuya lista de arquitecturas incluya {capability}: las GPU anteriores a Turing solo están en las compilaciones para CUDA 12.6 (.../whl/cu126), y las GPU RTX serie 50 solo en las de CUDA 12.8 y posteriores (.../whl/cu128), por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;. Hasta entonces, el trabajo en la GPU falla con &apos;no kernel image is available for execution on the device&apos;.</translation>
    </message>
    <message>
        <source>GPUs older than Turing ({capability} is one) are only in PyTorch&apos;s CUDA 12.6 builds, not in the CUDA 12.8 and newer ones: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (PyTorch 2.14 is the last release with such a build). Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>Las GPU anteriores a Turing ({capability} es una de ellas) solo están en las compilaciones de PyTorch para CUDA 12.6, no en las de CUDA 12.8 y posteriores: &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (PyTorch 2.14 es la última versión con una compilación así). Hasta entonces, el trabajo en la GPU falla con &apos;no kernel image is available for execution on the device&apos;.</translation>
    </message>
    <message>
        <source>Every current PyTorch CUDA build (cu126, cu128 and newer) includes {capability}: the installed one is older than this GPU&apos;s generation. Install a current build, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;, after &apos;pip uninstall torch&apos;. Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>Todas las compilaciones CUDA actuales de PyTorch (cu126, cu128 y más nuevas) incluyen {capability}: la instalada es anterior a la generación de esta GPU. Instala una compilación actual, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;, después de &apos;pip uninstall torch&apos;. Hasta entonces, el trabajo en la GPU falla con &apos;no kernel image is available for execution on the device&apos;.</translation>
    </message>
    <message>
        <source>Blackwell GPUs ({capability}; RTX 50-series) need PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;, with a driver of the 570 series or newer. Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>Las GPU Blackwell ({capability}; RTX serie 50) necesitan PyTorch 2.7 o posterior desde un índice de CUDA 12.8 o posterior, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu128&apos;, con un controlador de la serie 570 o posterior. Hasta entonces, el trabajo en la GPU falla con &apos;no kernel image is available for execution on the device&apos;.</translation>
    </message>
    <message>
        <source>{gpu} (compute capability {capability}) is too old for the installed PyTorch.</source>
        <translation>{gpu} (capacidad de cómputo {capability}) es demasiado antigua para el PyTorch instalado.</translation>
    </message>
    <message>
        <source>PyTorch builds drop old GPU generations over time. Install an older PyTorch release that still supports compute capability {capability}, build PyTorch from source for it, or use the CPU build.</source>
        <translation>Las compilaciones de PyTorch van dejando de admitir generaciones antiguas de GPU. Instala una versión anterior de PyTorch que todavía admita la capacidad de cómputo {capability}, compila PyTorch desde el código fuente para ella o usa la compilación para CPU.</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for the CUDA version of the installed framework build (&apos;CUDA driver version is insufficient&apos;).</source>
        <translation>El controlador de NVIDIA es demasiado antiguo para la versión de CUDA de la compilación del framework instalada (&apos;CUDA driver version is insufficient&apos;).</translation>
    </message>
    <message>
        <source>PyTorch and TensorFlow run on the CPU here: install their CPU builds (the recommendation names them). GPU training (CUDA) needs an NVIDIA GPU: on a laptop with two GPUs, check that the NVIDIA GPU is enabled in the firmware (BIOS/UEFI) settings; on a cloud VM, pick an instance type with an NVIDIA GPU.</source>
        <translation>PyTorch y TensorFlow funcionan aquí en la CPU: instale sus versiones para CPU (la recomendación las indica). El entrenamiento en GPU (CUDA) necesita una GPU NVIDIA: en un portátil con dos GPU, compruebe que la GPU NVIDIA está activada en la configuración del firmware (BIOS/UEFI); en una máquina virtual en la nube, elija un tipo de instancia con GPU NVIDIA.</translation>
    </message>
    <message>
        <source>PyTorch and TensorFlow run on the CPU here: install their CPU builds (the recommendation names them). CUDA builds run only on NVIDIA GPUs: on a laptop with two GPUs, check that the NVIDIA GPU is enabled in the firmware (BIOS/UEFI) settings.</source>
        <translation>PyTorch y TensorFlow funcionan aquí en la CPU: instale sus versiones para CPU (la recomendación las indica). Las versiones CUDA solo funcionan en GPU NVIDIA: en un portátil con dos GPU, compruebe que la GPU NVIDIA está activada en la configuración del firmware (BIOS/UEFI).</translation>
    </message>
    <message>
        <source>The GPU here is not an NVIDIA GPU: {names}.</source>
        <translation>La GPU de esta máquina no es una GPU NVIDIA: {names}.</translation>
    </message>
    <message>
        <source>CUDA needs NVIDIA, but PyTorch has builds for AMD GPUs (ROCm, on Linux), Intel GPUs (XPU) and Apple silicon (MPS): the recommendation checks whether one carries code for this GPU, and says why not where none does.</source>
        <translation>CUDA requiere NVIDIA, pero PyTorch tiene compilaciones para GPU AMD (ROCm, en Linux), GPU Intel (XPU) y Apple silicon (MPS): la recomendación comprueba si alguna incluye código para esta GPU y, si ninguna lo incluye, explica por qué.</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver for your GPU from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;), then restart the computer and run the wizard again.</source>
        <translation>Instala el controlador de NVIDIA para tu GPU desde https://www.nvidia.com/Download/index.aspx (en Ubuntu: &apos;sudo ubuntu-drivers install&apos;), reinicia el equipo y vuelve a ejecutar el asistente.</translation>
    </message>
    <message>
        <source>Install NVIDIA&apos;s driver (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;; elsewhere from https://www.nvidia.com/Download/index.aspx), which replaces nouveau, then restart the computer.</source>
        <translation>Instala el controlador de NVIDIA (en Ubuntu: &apos;sudo ubuntu-drivers install&apos;; en otros sistemas desde https://www.nvidia.com/Download/index.aspx), que sustituye a nouveau, y reinicia el equipo.</translation>
    </message>
    <message>
        <source>Install or update the NVIDIA driver on Windows (not inside WSL) from https://www.nvidia.com/Download/index.aspx, then run &apos;wsl --shutdown&apos; in Windows and open WSL again. The Windows driver serves WSL 2 (NVIDIA CUDA on WSL User Guide).</source>
        <translation>Instala o actualiza el controlador de NVIDIA en Windows (no dentro de WSL) desde https://www.nvidia.com/Download/index.aspx, ejecuta &apos;wsl --shutdown&apos; en Windows y vuelve a abrir WSL. El controlador de Windows sirve a WSL 2 (NVIDIA CUDA on WSL User Guide).</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver for your GPU from https://www.nvidia.com/Download/index.aspx (a &apos;Microsoft Basic Display Adapter&apos; means no NVIDIA driver is installed), restart Windows, and run the wizard again.</source>
        <translation>Instala el controlador de NVIDIA para tu GPU desde https://www.nvidia.com/Download/index.aspx (un &apos;Microsoft Basic Display Adapter&apos; significa que no hay ningún controlador de NVIDIA instalado), reinicia Windows y vuelve a ejecutar el asistente.</translation>
    </message>
    <message>
        <source>Detection fell back to other sources. If &apos;nvidia-smi&apos; also fails, reinstall the NVIDIA driver from https://www.nvidia.com/Download/index.aspx.</source>
        <translation>La detección recurrió a otras fuentes. Si &apos;nvidia-smi&apos; también falla, reinstala el controlador de NVIDIA desde https://www.nvidia.com/Download/index.aspx.</translation>
    </message>
    <message>
        <source>On Apple silicon, PyTorch uses the GPU through MPS (macOS 12.3 or newer; the PyTorch releases from 2.12 need macOS 14); an Intel Mac has PyTorch wheels up to 2.2 only, for the CPU.</source>
        <translation>En Apple silicon, PyTorch usa la GPU a través de MPS (macOS 12.3 o posterior; las versiones de PyTorch a partir de la 2.12 necesitan macOS 14); un Mac con Intel solo tiene wheels de PyTorch hasta la 2.2, y solo para la CPU.</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to {min_driver} or newer from https://www.nvidia.com/Download/index.aspx. {otherwise}</source>
        <translation>Actualiza el controlador de NVIDIA a la versión {min_driver} o posterior desde https://www.nvidia.com/Download/index.aspx. {otherwise}</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver, {min_driver} or newer for {build}, from https://www.nvidia.com/Download/index.aspx, then restart the computer.</source>
        <translation>Instala el controlador de NVIDIA, versión {min_driver} o posterior para {build}, desde https://www.nvidia.com/Download/index.aspx y reinicia el equipo.</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is in no PyTorch ROCm build: the builds carry {targets}.</source>
        <translation>{gpu} ({target}) no está en ninguna compilación ROCm de PyTorch: las compilaciones incluyen {targets}.</translation>
    </message>
    <message>
        <source>PyTorch&apos;s ROCm wheels have no code for this GPU, so the plan is the CPU build. A GPU whose target is listed would train on the GPU.</source>
        <translation>Los wheels ROCm de PyTorch no tienen código para esta GPU, así que el plan es la compilación para CPU. Una GPU cuyo destino figure en la lista entrenaría en la GPU.</translation>
    </message>
    <message>
        <source>PyTorch&apos;s ROCm wheels have no code for this GPU, so the plan is the CPU build. AMD documents HSA_OVERRIDE_GFX_VERSION={override} for this GPU (accelerators.json names where); the wizard does not set it for you: it makes the runtime treat the GPU as another target, at your own risk.</source>
        <translation>Los wheels ROCm de PyTorch no tienen código para esta GPU, así que el plan es la compilación para CPU. AMD documenta HSA_OVERRIDE_GFX_VERSION={override} para esta GPU (accelerators.json indica dónde); el asistente no lo establece por ti: hace que el runtime trate la GPU como si fuera otro destino, bajo tu propia responsabilidad.</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is in no PyTorch ROCm build (they carry {targets}); the plan uses the other AMD GPUs.</source>
        <translation>{gpu} ({target}) no está en ninguna compilación ROCm de PyTorch (estas incluyen {targets}); el plan usa las otras GPU de AMD.</translation>
    </message>
    <message>
        <source>Hide it from PyTorch, or work may land on it and fail with &apos;invalid device function&apos;: set HIP_VISIBLE_DEVICES to the other GPUs, numbered as ROCm counts them (&apos;rocminfo&apos; lists them in that order; ROCm&apos;s docs, &apos;GPU isolation techniques&apos;).</source>
        <translation>Ocúltala a PyTorch, o el trabajo puede acabar en ella y fallar con &apos;invalid device function&apos;: pon en HIP_VISIBLE_DEVICES las otras GPU, numeradas como las cuenta ROCm (&apos;rocminfo&apos; las lista en ese orden; documentación de ROCm, &apos;GPU isolation techniques&apos;).</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is in other PyTorch ROCm builds, not in those of {build}&apos;s release.</source>
        <translation>{gpu} ({target}) está en otras compilaciones ROCm de PyTorch, pero no en las de la versión de {build}.</translation>
    </message>
    <message>
        <source>Ask for the release whose ROCm build carries {target} (run the recommendation without a version to get it), or keep the CPU build.</source>
        <translation>Pide la versión cuya compilación ROCm incluya {target} (ejecuta la recomendación sin indicar versión para obtenerla) o quédate con la compilación para CPU.</translation>
    </message>
    <message>
        <source>{gpu}: its gfx target could not be told, so no PyTorch ROCm build could be checked against it.</source>
        <translation>{gpu}: no se pudo determinar su destino gfx, así que no se pudo comprobar ninguna compilación ROCm de PyTorch con ella.</translation>
    </message>
    <message>
        <source>Check that the amdgpu driver is loaded (&apos;ls /sys/class/kfd/kfd/topology/nodes&apos; lists the GPU), or install ROCm&apos;s &apos;rocminfo&apos;, then run the wizard again.</source>
        <translation>Comprueba que el controlador amdgpu esté cargado (&apos;ls /sys/class/kfd/kfd/topology/nodes&apos; muestra la GPU) o instala &apos;rocminfo&apos; de ROCm, y vuelve a ejecutar el asistente.</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch publishes its ROCm builds for Linux only, and this is {os}.</source>
        <translation>{gpu}: PyTorch publica sus compilaciones ROCm solo para Linux, y este sistema es {os}.</translation>
    </message>
    <message>
        <source>The plan is the CPU build. On Linux (installed beside this system, for example) PyTorch&apos;s ROCm wheels would use this GPU. DirectML is not offered: Microsoft keeps it in maintenance only.</source>
        <translation>El plan es la compilación para CPU. En Linux (instalado junto a este sistema, por ejemplo), los wheels ROCm de PyTorch usarían esta GPU. No se ofrece DirectML: Microsoft lo tiene solo en modo de mantenimiento.</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch publishes its ROCm builds for Linux only, and this is Windows.</source>
        <translation>{gpu}: PyTorch publica sus compilaciones ROCm solo para Linux, y este sistema es Windows.</translation>
    </message>
    <message>
        <source>The plan is the CPU build. AMD publishes its own preview PyTorch wheels for Windows ({amd_builds}); the wizard does not plan them, because which GPUs they serve and which driver they need is not in its data yet. On Linux (installed beside Windows, for example) PyTorch&apos;s ROCm wheels would use this GPU where they carry its target. DirectML is not offered: Microsoft keeps it in maintenance only.</source>
        <translation>El plan es la compilación para CPU. AMD publica sus propios wheels preliminares de PyTorch para Windows ({amd_builds}); el asistente no los incluye en el plan, porque sus datos aún no indican qué GPU admiten ni qué controlador necesitan. En Linux (instalado junto a Windows, por ejemplo), los wheels ROCm de PyTorch usarían esta GPU si incluyen su destino. No se ofrece DirectML: Microsoft lo tiene solo en modo de mantenimiento.</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch&apos;s ROCm wheels are built for x86_64 only, and this machine is {arch}.</source>
        <translation>{gpu}: los wheels ROCm de PyTorch se compilan solo para x86_64, y esta máquina es {arch}.</translation>
    </message>
    <message>
        <source>The plan is the CPU build. On an x86_64 Linux machine PyTorch&apos;s ROCm wheels would use this GPU where they carry its target.</source>
        <translation>El plan es la compilación para CPU. En una máquina Linux x86_64, los wheels ROCm de PyTorch usarían esta GPU cuando incluyen su destino.</translation>
    </message>
    <message>
        <source>{gpu} ({target}): AMD publishes its own PyTorch wheels for Windows that carry this target; the wizard does not set them up yet.</source>
        <translation>{gpu} ({target}): AMD publica sus propios wheels de PyTorch para Windows que incluyen este destino; el asistente aún no los configura.</translation>
    </message>
    <message>
        <source>The plan is the CPU build. AMD&apos;s wheels are installed by hand from AMD&apos;s own download site (see AMD&apos;s &apos;PyTorch on Windows&apos; guide); PyTorch&apos;s ROCm wheels are for Linux only.</source>
        <translation>El plan es la compilación para CPU. Los wheels de AMD se instalan a mano desde el sitio de descargas de AMD (consulta la guía &apos;PyTorch on Windows&apos; de AMD); los wheels ROCm de PyTorch son solo para Linux.</translation>
    </message>
    <message>
        <source>{gpu} ({family}) is not served by PyTorch&apos;s XPU builds.</source>
        <translation>{gpu} ({family}) no es compatible con las compilaciones XPU de PyTorch.</translation>
    </message>
    <message>
        <source>The plan is the CPU build. PyTorch&apos;s XPU builds serve {families}.</source>
        <translation>El plan es la compilación para CPU. Las compilaciones XPU de PyTorch admiten {families}.</translation>
    </message>
    <message>
        <source>{gpu} ({family}) is not served by PyTorch&apos;s XPU builds; the plan uses the other Intel GPUs.</source>
        <translation>{gpu} ({family}) no está cubierta por las compilaciones XPU de PyTorch; el plan usa las otras GPU de Intel.</translation>
    </message>
    <message>
        <source>Hide it from PyTorch, or work may land on it and fail: set ZE_AFFINITY_MASK to the other GPUs, numbered as Level Zero counts them (oneAPI Level Zero specification, &apos;Affinity Mask&apos;).</source>
        <translation>Ocúltala a PyTorch, o el trabajo puede acabar en ella y fallar: pon en ZE_AFFINITY_MASK las otras GPU, numeradas como las cuenta Level Zero (especificación oneAPI Level Zero, &apos;Affinity Mask&apos;).</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch&apos;s XPU builds are for Linux and Windows, and this is {os}.</source>
        <translation>{gpu}: las compilaciones XPU de PyTorch son para Linux y Windows, y este sistema es {os}.</translation>
    </message>
    <message>
        <source>The plan is the CPU build.</source>
        <translation>El plan es la compilación para CPU.</translation>
    </message>
    <message>
        <source>{gpu}: PyTorch&apos;s XPU wheels are built for x86_64 only, and this machine is {arch}.</source>
        <translation>{gpu}: los wheels XPU de PyTorch se compilan solo para x86_64, y esta máquina es {arch}.</translation>
    </message>
    <message>
        <source>Intel graphics driver {driver} is older than the {min_driver} that {build} needs.</source>
        <translation>El controlador de gráficos de Intel {driver} es anterior al {min_driver} que necesita {build}.</translation>
    </message>
    <message>
        <source>Update the Intel graphics driver (Intel&apos;s Arc and Iris Xe graphics driver, or the Intel Driver &amp; Support Assistant) to {min_driver} or newer, restart Windows, and run the wizard again.</source>
        <translation>Actualiza el controlador de gráficos de Intel (el controlador de gráficos Intel Arc e Iris Xe, o Intel Driver &amp; Support Assistant) a {min_driver} o posterior, reinicia Windows y vuelve a ejecutar el asistente.</translation>
    </message>
    <message>
        <source>macOS {macos} is older than the {minimum} that PyTorch&apos;s MPS backend needs: PyTorch would not use the {gpu}.</source>
        <translation>macOS {macos} es anterior a la {minimum} que necesita el backend MPS de PyTorch: PyTorch no usaría {gpu}.</translation>
    </message>
    <message>
        <source>Update macOS to {minimum} or newer to train on the Apple GPU; until then the plan runs on the CPU.</source>
        <translation>Actualiza macOS a {minimum} o posterior para entrenar en la GPU de Apple; hasta entonces, el plan se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>The wizard plans TensorFlow on the CPU here, not on {gpu}: {fact}</source>
        <translation>Aquí el asistente planifica TensorFlow en la CPU, no en {gpu}: {fact}</translation>
    </message>
    <message>
        <source>This user cannot open the GPU&apos;s device files (/dev/kfd): {detail}.</source>
        <translation>Este usuario no puede abrir los archivos de dispositivo de la GPU (/dev/kfd): {detail}.</translation>
    </message>
    <message>
        <source>ROCm&apos;s install guide: add yourself to the {groups} groups (&apos;sudo usermod -a -G {groups} $LOGNAME&apos;), then log out and in again, and run the wizard again.</source>
        <translation>Guía de instalación de ROCm: añádete a los grupos {groups} (&apos;sudo usermod -a -G {groups} $LOGNAME&apos;), cierra la sesión, vuelve a iniciarla y vuelve a ejecutar el asistente.</translation>
    </message>
    <message>
        <source>PyTorch {first} and newer need macOS {minimum}; this Mac has {macos}, so the plan is PyTorch {version}.</source>
        <translation>PyTorch {first} y posteriores necesitan macOS {minimum}; este Mac tiene {macos}, así que el plan es PyTorch {version}.</translation>
    </message>
    <message>
        <source>Update macOS to {minimum} or newer for the newest PyTorch releases.</source>
        <translation>Actualiza macOS a {minimum} o posterior para usar las versiones más recientes de PyTorch.</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;); in WSL 2, install the driver on Windows, not inside WSL.</source>
        <translation>Instala el controlador de NVIDIA desde https://www.nvidia.com/Download/index.aspx y reinicia. En un contenedor, inícialo con acceso a la GPU (&apos;docker run --gpus all ...&apos;); en WSL 2, instala el controlador en Windows, no dentro de WSL.</translation>
    </message>
    <message>
        <source>{library} needs the CUDA driver function {symbol}, which the installed NVIDIA driver does not have: the driver is older than the CUDA that {library} was built for.</source>
        <translation>{library} necesita la función del controlador de CUDA {symbol}, que el controlador de NVIDIA instalado no tiene: el controlador es más antiguo que el CUDA para el que se compiló {library}.</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart (&apos;nvidia-smi&apos; shows the newest CUDA the driver supports; the package needs a driver made for the CUDA it was built with), or install a build of the package made for the driver&apos;s CUDA. In a container, the host&apos;s driver is the one that counts.</source>
        <translation>Actualiza el controlador de NVIDIA desde https://www.nvidia.com/Download/index.aspx y reinicia (&apos;nvidia-smi&apos; muestra el CUDA más reciente que admite el controlador; el paquete necesita un controlador hecho para el CUDA con el que se compiló), o instala una versión del paquete hecha para el CUDA del controlador. En un contenedor, lo que cuenta es el controlador del host.</translation>
    </message>
    <message>
        <source>The NVIDIA driver supports CUDA up to {driver_cuda}, which is older than the CUDA of the installed PyTorch build.</source>
        <translation>El controlador de NVIDIA admite CUDA hasta {driver_cuda}, que es anterior a la versión de CUDA de la compilación de PyTorch instalada.</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart, or install a PyTorch build for CUDA {driver_cuda} or older (the matching cuXXX index on pytorch.org).</source>
        <translation>Actualiza el controlador de NVIDIA desde https://www.nvidia.com/Download/index.aspx y reinicia, o instala una versión de PyTorch para CUDA {driver_cuda} o anterior (el índice cuXXX correspondiente en pytorch.org).</translation>
    </message>
    <message>
        <source>The GPU ran out of memory.</source>
        <translation>La GPU se quedó sin memoria.</translation>
    </message>
    <message>
        <source>Use a smaller batch size or model, or free the GPU: close other programs that use it (&apos;nvidia-smi&apos; lists them). In PyTorch, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True can help against fragmentation; in TensorFlow, enable memory growth (tf.config.experimental.set_memory_growth) so it does not reserve all GPU memory at start.</source>
        <translation>Usa un tamaño de lote o un modelo más pequeño, o libera la GPU: cierra otros programas que la usen (&apos;nvidia-smi&apos; los enumera). En PyTorch, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True puede ayudar contra la fragmentación; en TensorFlow, activa el crecimiento de memoria (tf.config.experimental.set_memory_growth) para que no reserve toda la memoria de la GPU al inicio.</translation>
    </message>
    <message>
        <source>The GPU ran out of memory (it could not allocate {size}).</source>
        <translation>La GPU se quedó sin memoria (no pudo asignar {size}).</translation>
    </message>
    <message>
        <source>The installed framework is a CPU-only build: it cannot use the GPU.</source>
        <translation>El framework instalado es una compilación solo para CPU: no puede usar la GPU.</translation>
    </message>
    <message>
        <source>Install its GPU build. PyTorch: from the CUDA index that fits your driver, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (on Windows, torch from PyPI is CPU-only). TensorFlow: on Linux &apos;pip install tensorflow[and-cuda]&apos;; on native Windows, TensorFlow 2.11 and newer have no GPU build (use WSL 2, or TensorFlow 2.10).</source>
        <translation>Instala su compilación para GPU. PyTorch: desde el índice de CUDA adecuado para tu controlador, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (en Windows, torch de PyPI es solo para CPU). TensorFlow: en Linux, &apos;pip install tensorflow[and-cuda]&apos;; en Windows nativo, TensorFlow 2.11 y posteriores no tienen compilación para GPU (usa WSL 2 o TensorFlow 2.10).</translation>
    </message>
    <message>
        <source>The installed PyTorch is a CPU-only build (&apos;Torch not compiled with CUDA enabled&apos;).</source>
        <translation>El PyTorch instalado es una compilación solo para CPU (&apos;Torch not compiled with CUDA enabled&apos;).</translation>
    </message>
    <message>
        <source>The code asked for a CUDA GPU on a Mac, where PyTorch has no CUDA (&apos;Torch not compiled with CUDA enabled&apos;).</source>
        <translation>El código pidió una GPU CUDA en un Mac, donde PyTorch no tiene CUDA (&apos;Torch not compiled with CUDA enabled&apos;).</translation>
    </message>
    <message>
        <source>cuDNN could not find zlibwapi.dll.</source>
        <translation>cuDNN no encontró zlibwapi.dll.</translation>
    </message>
    <message>
        <source>cuDNN 8.3 and newer 8.x releases on Windows need zlibwapi.dll, which is not part of cuDNN or CUDA (NVIDIA&apos;s cuDNN 8 installation guide, &apos;Installing Zlib&apos;). Put a 64-bit zlibwapi.dll in a folder on PATH, such as CUDA&apos;s bin folder, or use conda-forge&apos;s cudnn package, which brings it.</source>
        <translation>cuDNN 8.3 y las versiones 8.x posteriores en Windows necesitan zlibwapi.dll, que no forma parte de cuDNN ni de CUDA (guía de instalación de cuDNN 8 de NVIDIA, &apos;Installing Zlib&apos;). Pon un zlibwapi.dll de 64 bits en una carpeta de PATH, como la carpeta bin de CUDA, o usa el paquete cudnn de conda-forge, que lo incluye.</translation>
    </message>
    <message>
        <source>Windows could not load {library}, a part of PyTorch, or a DLL it depends on.</source>
        <translation>Windows no pudo cargar {library}, una parte de PyTorch, o una DLL de la que depende.</translation>
    </message>
    <message>
        <source>The file is usually there; what is missing is a DLL it needs, most often the Microsoft Visual C++ Redistributable: install the latest x64 version (https://aka.ms/vs/17/release/vc_redist.x64.exe) and restart. PyTorch 2.4.0 on Windows failed this way on fbgemm.dll, fixed in 2.4.1 (pytorch/pytorch#131662). If it persists, reinstall torch in a fresh environment.</source>
        <translation>El archivo suele estar ahí; lo que falta es una DLL que necesita, casi siempre Microsoft Visual C++ Redistributable: instala la última versión x64 (https://aka.ms/vs/17/release/vc_redist.x64.exe) y reinicia. PyTorch 2.4.0 en Windows fallaba así con fbgemm.dll, corregido en 2.4.1 (pytorch/pytorch#131662). Si persiste, reinstala torch en un entorno nuevo.</translation>
    </message>
    <message>
        <source>Most often this is PyTorch 2.4.0&apos;s known failure on Windows: fbgemm.dll needs libomp140.x86_64.dll, which that release did not bring (pytorch/pytorch#129568), fixed in 2.4.1. Install torch 2.4.1 or newer from the same index, for example &apos;pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121&apos;. With another version, install the latest x64 Microsoft Visual C++ Redistributable (https://aka.ms/vs/17/release/vc_redist.x64.exe) and restart.</source>
        <translation>Lo más frecuente es el fallo conocido de PyTorch 2.4.0 en Windows: fbgemm.dll necesita libomp140.x86_64.dll, que esa versión no traía (pytorch/pytorch#129568), corregido en 2.4.1. Instala torch 2.4.1 o más nuevo desde el mismo índice, por ejemplo &apos;pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121&apos;. Con otra versión, instala el Microsoft Visual C++ Redistributable x64 más reciente (https://aka.ms/vs/17/release/vc_redist.x64.exe) y reinicia.</translation>
    </message>
    <message>
        <source>The installer found no installable version of {requirements}.</source>
        <translation>El instalador no encontró ninguna versión instalable de {requirements}.</translation>
    </message>
    <message>
        <source>Usual causes: a Python version the package does not support yet (or any more), a name or version that does not exist (PyTorch&apos;s CUDA builds such as +cu118 are on download.pytorch.org, not PyPI), or no access to the package index. Let the wizard pick a Python and a version that exist together.</source>
        <translation>Causas habituales: una versión de Python que el paquete aún no admite (o ya no admite), un nombre o una versión que no existe (las compilaciones CUDA de PyTorch, como +cu118, están en download.pytorch.org, no en PyPI) o falta de acceso al índice de paquetes. Deja que el asistente elija un Python y una versión que existan juntos.</translation>
    </message>
    <message>
        <source>The installer found no installable version of {requirements}; versions available here: {versions}.</source>
        <translation>El instalador no encontró ninguna versión instalable de {requirements}; versiones disponibles aquí: {versions}.</translation>
    </message>
    <message>
        <source>The installer found no {requirements}: the newest {package} it could install here is {newest}.</source>
        <translation>El instalador no encontró {requirements}: la versión más reciente de {package} que puede instalar aquí es {newest}.</translation>
    </message>
    <message>
        <source>Nothing newer than {newest} is published on this index for this Python and platform: {package} {wanted} is there for other Python versions, platforms or CUDA indexes (a newer PyTorch may need the cu126 or cu128 index rather than an older one), or not released yet. Install {newest}, or use the Python, platform or index that {wanted} is published for; &apos;gpuwizard recommend&apos; names a set that exists together.</source>
        <translation>En este índice no hay publicada ninguna versión posterior a {newest} para esta versión de Python y esta plataforma: {package} {wanted} o bien está disponible para otras versiones de Python, otras plataformas u otros índices de CUDA (una versión más reciente de PyTorch puede requerir el índice cu126 o cu128 en lugar de uno anterior), o bien todavía no se ha publicado. Instale {newest}, o utilice la versión de Python, la plataforma o el índice para los que se ha publicado {wanted}; &apos;gpuwizard recommend&apos; indica una combinación de versiones que existen juntas.</translation>
    </message>
    <message>
        <source>The installer found no {requirements}: the oldest {package} it could install here is {oldest}.</source>
        <translation>El instalador no encontró {requirements}: la versión más antigua de {package} que puede instalar aquí es {oldest}.</translation>
    </message>
    <message>
        <source>{package} releases before {oldest} have no wheels for this Python or platform (each release is built for a range of Python versions). Install {package} {oldest} or newer, or use a Python that {package} {wanted} was built for; &apos;gpuwizard recommend&apos; names a set that exists together.</source>
        <translation>Las versiones de {package} anteriores a {oldest} no tienen wheels para esta versión de Python o esta plataforma (cada versión se compila para un rango de versiones de Python). Instale {package} {oldest} o una versión posterior, o utilice una versión de Python para la que se haya compilado {package} {wanted}; &apos;gpuwizard recommend&apos; indica una combinación de versiones que existen juntas.</translation>
    </message>
    <message>
        <source>This looks like a 32-bit Python, or one too new or too old for the package: PyTorch and TensorFlow publish 64-bit packages only, for a range of Python versions. Install a 64-bit Python from python.org that the framework supports and let the wizard pick the version.</source>
        <translation>Parece un Python de 32 bits, o uno demasiado nuevo o demasiado antiguo para el paquete: PyTorch y TensorFlow solo publican paquetes de 64 bits, para un rango de versiones de Python. Instala desde python.org un Python de 64 bits que admita el framework y deja que el asistente elija la versión.</translation>
    </message>
    <message>
        <source>The installer found no installable version of {requirements} for Python {python}.</source>
        <translation>El instalador no encontró ninguna versión instalable de {requirements} para Python {python}.</translation>
    </message>
    <message>
        <source>Most likely no release of it publishes wheels for Python {python} (yet, or any more): frameworks support a range of Python versions per release. Create the environment with a Python the release supports, for example &apos;uv venv --python 3.12&apos;, and install again; &apos;gpuwizard recommend --framework pytorch&apos; (or tensorflow) names the Python for each release. A 32-bit Python finds no version either: PyTorch and TensorFlow publish 64-bit packages only.</source>
        <translation>Lo más probable es que ninguna versión publique wheels para Python {python} (todavía, o ya no): los frameworks admiten un rango de versiones de Python en cada versión. Crea el entorno con un Python que la versión admita, por ejemplo &apos;uv venv --python 3.12&apos;, e instala de nuevo; &apos;gpuwizard recommend --framework pytorch&apos; (o tensorflow) indica el Python de cada versión. Un Python de 32 bits tampoco encuentra ninguna versión: PyTorch y TensorFlow solo publican paquetes de 64 bits.</translation>
    </message>
    <message>
        <source>The installer picked {requirements}, which has no wheel for this platform.</source>
        <translation>El instalador eligió {requirements}, que no tiene ningún wheel para esta plataforma.</translation>
    </message>
    <message>
        <source>The index has that version only for other operating systems or processors (uv&apos;s hint names them). Install a version that has a wheel here: for PyTorch&apos;s CUDA builds, one from the index of a CUDA variant that publishes this platform (on Windows, win_amd64: &apos;gpuwizard recommend --framework pytorch&apos; names one). In a uv project, give the PyTorch index a platform marker in tool.uv.sources (marker = &quot;sys_platform == &apos;linux&apos;&quot;), as uv&apos;s PyTorch guide shows, and lock again.</source>
        <translation>El índice tiene esa versión solo para otros sistemas operativos o procesadores (la sugerencia de uv los nombra). Instala una versión que tenga un wheel aquí: para las compilaciones CUDA de PyTorch, una del índice de una variante de CUDA que publique esta plataforma (en Windows, win_amd64: &apos;gpuwizard recommend --framework pytorch&apos; indica una). En un proyecto de uv, añade al índice de PyTorch un marcador de plataforma en tool.uv.sources (marker = &quot;sys_platform == &apos;linux&apos;&quot;), como muestra la guía de PyTorch de uv, y vuelve a generar el archivo de bloqueo.</translation>
    </message>
    <message>
        <source>The folder of wheels has no installable {requirements}.</source>
        <translation>En la carpeta de wheels no hay nada instalable para {requirements}.</translation>
    </message>
    <message>
        <source>The install took packages only from a local folder of wheels (offline, --find-links, no package index), and that folder lacks {requirements}, which the packages being installed depend on; the Python version is not the problem. On a machine with internet, download the framework with all its dependencies into the folder for this machine&apos;s Python and platform (&apos;pip download --dest FOLDER --only-binary=:all: --python-version X.Y --platform TAG PACKAGE&apos;), then install again. The wizard&apos;s Choose page and &apos;gpuwizard env create --offline&apos; check a folder first and show the exact command.</source>
        <translation>La instalación tomó los paquetes solo de una carpeta local de wheels (sin conexión, --find-links, sin índice de paquetes), y a esa carpeta le falta {requirements}, de lo que dependen los paquetes que se están instalando; el problema no es la versión de Python. En una máquina con internet, descarga el framework con todas sus dependencias en la carpeta, para el Python y la plataforma de esta máquina (&apos;pip download --dest FOLDER --only-binary=:all: --python-version X.Y --platform TAG PACKAGE&apos;), y vuelve a instalar. La página Elegir del asistente y &apos;gpuwizard env create --offline&apos; comprueban primero la carpeta y muestran el comando exacto.</translation>
    </message>
    <message>
        <source>Install &apos;tensorflow&apos; instead and replace &apos;tensorflow-gpu&apos; in requirement files (on Linux, &apos;pip install tensorflow[and-cuda]&apos; also installs the CUDA libraries). Since December 2022 &apos;tensorflow-gpu&apos; is an empty package that fails on install; the two were the same package since TensorFlow 2.1.</source>
        <translation>Instala &apos;tensorflow&apos; en su lugar y reemplaza &apos;tensorflow-gpu&apos; en los archivos de requisitos (en Linux, &apos;pip install tensorflow[and-cuda]&apos; también instala las bibliotecas de CUDA). Desde diciembre de 2022, &apos;tensorflow-gpu&apos; es un paquete vacío que falla al instalarse; ambos eran el mismo paquete desde TensorFlow 2.1.</translation>
    </message>
    <message>
        <source>cuDNN failed to start (CUDNN_STATUS_INTERNAL_ERROR or &apos;Failed to get convolution algorithm&apos;).</source>
        <translation>cuDNN no pudo iniciarse (CUDNN_STATUS_INTERNAL_ERROR o &apos;Failed to get convolution algorithm&apos;).</translation>
    </message>
    <message>
        <source>Usual causes: the GPU memory was already full when cuDNN started (TensorFlow reserves nearly all GPU memory by default: enable memory growth with tf.config.experimental.set_memory_growth, and close other programs that use the GPU), or a cuDNN that does not match the framework build (install the cuDNN your build expects, or use an environment that brings its own).</source>
        <translation>Causas habituales: la memoria de la GPU ya estaba llena cuando se inició cuDNN (TensorFlow reserva casi toda la memoria de la GPU por defecto: activa el crecimiento de memoria con tf.config.experimental.set_memory_growth y cierra otros programas que usen la GPU), o un cuDNN que no coincide con la compilación del framework (instala el cuDNN que espera tu compilación, o usa un entorno que traiga el suyo).</translation>
    </message>
    <message>
        <source>Usual causes in PyTorch: GPU memory was already nearly full (other programs: &apos;nvidia-smi&apos; lists them; or a batch too large: make it smaller), another cuDNN shadowing the one PyTorch brings (unset LD_LIBRARY_PATH, or remove a CUDA folder from PATH, for this environment), or a build older than the GPU (install a current one). Running once with CUDA_LAUNCH_BLOCKING=1 shows the call that failed.</source>
        <translation>Causas habituales en PyTorch: la memoria de la GPU ya estaba casi llena (otros programas: &apos;nvidia-smi&apos; los lista; o un lote demasiado grande: hazlo más pequeño), otro cuDNN que tapa el que trae PyTorch (quita LD_LIBRARY_PATH, o una carpeta de CUDA del PATH, en este entorno) o una compilación más antigua que la GPU (instala una actual). Ejecutarlo una vez con CUDA_LAUNCH_BLOCKING=1 muestra la llamada que falló.</translation>
    </message>
    <message>
        <source>The framework was built with cuDNN {compiled}, but cuDNN {loaded} was loaded.</source>
        <translation>El framework se compiló con cuDNN {compiled}, pero se cargó cuDNN {loaded}.</translation>
    </message>
    <message>
        <source>The loaded cuDNN must have the same major version and an equal or newer minor version. Another cuDNN on the library search path is found first: remove it from PATH or LD_LIBRARY_PATH, or install cuDNN {compiled} or a newer {major}.x; environments that bring their own cuDNN (pip or conda) avoid this.</source>
        <translation>El cuDNN cargado debe tener la misma versión principal y una versión secundaria igual o más reciente. Se encuentra antes otro cuDNN en la ruta de búsqueda de bibliotecas: quítalo de PATH o de LD_LIBRARY_PATH, o instala cuDNN {compiled} o una versión {major}.x más reciente; los entornos que traen su propio cuDNN (pip o conda) evitan esto.</translation>
    </message>
    <message>
        <source>Installing failed on a file path longer than Windows&apos; classic 260-character limit: Windows long-path support is probably off.</source>
        <translation>La instalación falló en una ruta de archivo de más de 260 caracteres, el límite clásico de Windows: probablemente la compatibilidad con rutas largas de Windows está desactivada.</translation>
    </message>
    <message>
        <source>Either enable long paths (an administrator sets HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled to 1, as the TensorFlow install guide says), or create the environment in a short folder such as C:\envs.</source>
        <translation>Activa las rutas largas (un administrador establece HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled en 1, como indica la guía de instalación de TensorFlow) o crea el entorno en una carpeta corta, como C:\envs.</translation>
    </message>
    <message>
        <source>The log shows the Microsoft Store build of Python {python}.</source>
        <translation>El registro muestra la versión de Microsoft Store de Python {python}.</translation>
    </message>
    <message>
        <source>The Store build installs packages in a deep, redirected folder under AppData\Local\Packages, which reaches Windows&apos; path length limit sooner, and it is known to break DLL loading for CUDA (TensorFlow issues #48868, #61438). Use a Python from python.org, or let the wizard create the environment with a uv-managed Python.</source>
        <translation>La versión de Store instala los paquetes en una carpeta profunda y redirigida bajo AppData\Local\Packages, que alcanza antes el límite de longitud de ruta de Windows, y se sabe que rompe la carga de DLL de CUDA (issues de TensorFlow #48868, #61438). Usa un Python de python.org o deja que el asistente cree el entorno con un Python gestionado por uv.</translation>
    </message>
    <message>
        <source>The interpreter {python} does not exist or cannot be run.</source>
        <translation>El intérprete {python} no existe o no se puede ejecutar.</translation>
    </message>
    <message>
        <source>Check the path (the environment may have been moved or removed); `gpuwizard env list` shows the interpreters of the environments the wizard made.</source>
        <translation>Comprueba la ruta (puede que el entorno se haya movido o eliminado); `gpuwizard env list` muestra los intérpretes de los entornos que creó el asistente.</translation>
    </message>
    <message>
        <source>The framework cannot be imported in this environment ({error}).</source>
        <translation>El framework no se puede importar en este entorno ({error}).</translation>
    </message>
    <message>
        <source>Install it into this environment (`gpuwizard env create` makes one with the right build), or test the environment that has it with --env NAME or --python EXE.</source>
        <translation>Instálalo en este entorno (`gpuwizard env create` crea uno con la compilación correcta), o prueba el entorno que lo tiene con --env NAME o --python EXE.</translation>
    </message>
    <message>
        <source>The training test stopped with an error: {error}</source>
        <translation>La prueba de entrenamiento se detuvo con un error: {error}</translation>
    </message>
    <message>
        <source>Look at the other findings for the known cause; run `gpuwizard diagnose` on the full output if none is shown.</source>
        <translation>Revisa los demás hallazgos para ver la causa conocida; si no se muestra ninguna, ejecuta `gpuwizard diagnose` sobre la salida completa.</translation>
    </message>
    <message>
        <source>The training test was stopped before it finished ({reason}).</source>
        <translation>La prueba de entrenamiento se detuvo antes de terminar ({reason}).</translation>
    </message>
    <message>
        <source>A test that hangs usually waits for a GPU that another process holds, or for a driver that no longer answers: check `nvidia-smi`, close other GPU programs, and run it again.</source>
        <translation>Una prueba que se cuelga suele estar esperando una GPU que retiene otro proceso, o un controlador que ya no responde: revisa `nvidia-smi`, cierra otros programas que usen la GPU y vuelve a ejecutarla.</translation>
    </message>
    <message>
        <source>The model did not learn: the loss went from {loss_first} to {loss_last}.</source>
        <translation>El modelo no aprendió: la pérdida pasó de {loss_first} a {loss_last}.</translation>
    </message>
    <message>
        <source>A loss that does not fall on this simple task means wrong results from the framework or the GPU: update the driver, and reinstall the framework build the wizard recommends.</source>
        <translation>Una pérdida que no baja en esta tarea sencilla indica resultados erróneos del framework o de la GPU: actualiza el controlador y reinstala la compilación del framework que recomienda el asistente.</translation>
    </message>
    <message>
        <source>The GPU computed different results from the CPU (difference {difference}, allowed {tolerance}).</source>
        <translation>La GPU calculó resultados distintos de los de la CPU (diferencia {difference}, permitida {tolerance}).</translation>
    </message>
    <message>
        <source>Wrong GPU results come from an unstable overclock, overheating or failing hardware, or a framework build that does not match the GPU: reset clocks to default, update the driver, and run the test again.</source>
        <translation>Los resultados erróneos de la GPU se deben a un overclock inestable, sobrecalentamiento o hardware defectuoso, o a una compilación del framework que no corresponde a la GPU: restablece las frecuencias predeterminadas, actualiza el controlador y vuelve a ejecutar la prueba.</translation>
    </message>
    <message>
        <source>The framework has GPU support but sees no GPU, although this machine has one.</source>
        <translation>El framework admite GPU pero no ve ninguna, aunque esta máquina tiene una.</translation>
    </message>
    <message>
        <source>Check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides every GPU), that the driver is new enough for the framework&apos;s CUDA build, and, in a container, that it was started with GPU access (--gpus all).</source>
        <translation>Comprueba CUDA_VISIBLE_DEVICES (un valor vacío o un índice erróneo oculta todas las GPU), que el controlador sea lo bastante reciente para la compilación CUDA del framework y, en un contenedor, que se haya iniciado con acceso a la GPU (--gpus all).</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}), which cannot use an NVIDIA GPU: {build} has no CUDA.</source>
        <translation>PyTorch es una compilación ROCm (HIP {runtime}), que no puede usar una GPU NVIDIA: {build} no tiene CUDA.</translation>
    </message>
    <message>
        <source>Install a CUDA build of PyTorch in this environment, from the CUDA index that fits your driver (for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;), or recreate the environment with the build the wizard recommends.</source>
        <translation>Instala una compilación CUDA de PyTorch en este entorno, desde el índice CUDA que corresponda a tu controlador (por ejemplo, &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;), o vuelve a crear el entorno con la compilación que recomienda el asistente.</translation>
    </message>
    <message>
        <source>PyTorch sees no ROCm GPU: torch.version.hip is None, so {build} is not a ROCm build.</source>
        <translation>PyTorch no ve ninguna GPU ROCm: torch.version.hip es None, así que {build} no es una compilación ROCm.</translation>
    </message>
    <message>
        <source>Install a ROCm build of PyTorch in this environment, from the ROCm index the wizard recommends for this GPU (for example &apos;pip install torch --index-url https://download.pytorch.org/whl/rocm6.4&apos;). PyTorch&apos;s own ROCm builds are for Linux; the builds from PyPI and from the CPU and CUDA indexes cannot use an AMD GPU.</source>
        <translation>Instala una compilación ROCm de PyTorch en este entorno, desde el índice ROCm que el asistente recomienda para esta GPU (por ejemplo, &apos;pip install torch --index-url https://download.pytorch.org/whl/rocm6.4&apos;). Las compilaciones ROCm propias de PyTorch son para Linux; las compilaciones de PyPI y de los índices de CPU y CUDA no pueden usar una GPU AMD.</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}) but sees no GPU: /dev/kfd does not exist.</source>
        <translation>PyTorch es una compilación ROCm (HIP {runtime}), pero no ve ninguna GPU: /dev/kfd no existe.</translation>
    </message>
    <message>
        <source>ROCm reaches AMD GPUs through /dev/kfd, the amdgpu kernel driver&apos;s compute interface: without it the driver is not loaded or serves no GPU for compute. Check &apos;lsmod | grep amdgpu&apos; and &apos;sudo dmesg | grep -i kfd&apos;, install or update AMD&apos;s amdgpu driver for your ROCm version, and restart. In a container, start it with &apos;--device=/dev/kfd --device=/dev/dri&apos;.</source>
        <translation>ROCm accede a las GPU AMD a través de /dev/kfd, la interfaz de cómputo del controlador del kernel amdgpu: si no existe, el controlador no está cargado o no ofrece ninguna GPU para cómputo. Comprueba &apos;lsmod | grep amdgpu&apos; y &apos;sudo dmesg | grep -i kfd&apos;, instala o actualiza el controlador amdgpu de AMD para tu versión de ROCm y reinicia. En un contenedor, inícialo con &apos;--device=/dev/kfd --device=/dev/dri&apos;.</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}) but sees no GPU: this user cannot open /dev/kfd.</source>
        <translation>PyTorch es una compilación ROCm (HIP {runtime}), pero no ve ninguna GPU: este usuario no puede abrir /dev/kfd.</translation>
    </message>
    <message>
        <source>ROCm needs read and write access to /dev/kfd and /dev/dri/renderD*: add the user to the render and video groups (&apos;sudo usermod -aG render,video $USER&apos;), then log out and in again. In a container, pass the host&apos;s own render and video group IDs (--group-add; &apos;getent group render video&apos; on the host tells them).</source>
        <translation>ROCm necesita acceso de lectura y escritura a /dev/kfd y /dev/dri/renderD*: añade el usuario a los grupos render y video (&apos;sudo usermod -aG render,video $USER&apos;), cierra la sesión y vuelve a iniciarla. En un contenedor, pasa los ID de los grupos render y video del propio host (--group-add; &apos;getent group render video&apos; en el host los indica).</translation>
    </message>
    <message>
        <source>PyTorch is a ROCm build (HIP {runtime}) but sees no AMD GPU.</source>
        <translation>PyTorch es una compilación ROCm (HIP {runtime}), pero no ve ninguna GPU AMD.</translation>
    </message>
    <message>
        <source>Check that HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES are not set to hide the GPU (an empty value or a wrong index hides every GPU), and that &apos;rocminfo&apos; lists the GPU as an agent; if it does not, the installed amdgpu driver and ROCm do not serve this GPU for compute: update them to a version that lists it as supported.</source>
        <translation>Comprueba que HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES y CUDA_VISIBLE_DEVICES no tengan valores que oculten la GPU (un valor vacío o un índice erróneo ocultan todas las GPU) y que &apos;rocminfo&apos; muestre la GPU como agente; si no la muestra, el controlador amdgpu y ROCm instalados no ofrecen esta GPU para cómputo: actualízalos a una versión que la incluya entre las compatibles.</translation>
    </message>
    <message>
        <source>PyTorch sees no Intel GPU: {build} is not an XPU build.</source>
        <translation>PyTorch no ve ninguna GPU Intel: {build} no es una compilación XPU.</translation>
    </message>
    <message>
        <source>Install PyTorch&apos;s XPU build in this environment, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos; (PyTorch 2.5 and newer, Linux and Windows), with Intel&apos;s GPU driver installed. The builds from PyPI and from the CPU and CUDA indexes cannot use an Intel GPU.</source>
        <translation>Instala la compilación XPU de PyTorch en este entorno, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/xpu&apos; (PyTorch 2.5 y posteriores, Linux y Windows), con el controlador de GPU de Intel instalado. Las compilaciones de PyPI y de los índices de CPU y CUDA no pueden usar una GPU Intel.</translation>
    </message>
    <message>
        <source>PyTorch is an XPU build ({build}) but sees no Intel GPU.</source>
        <translation>PyTorch es una compilación XPU ({build}), pero no ve ninguna GPU Intel.</translation>
    </message>
    <message>
        <source>PyTorch reaches Intel GPUs through the GPU driver&apos;s Level Zero runtime: install Intel&apos;s current GPU driver (on Linux its compute runtime, such as the libze-intel-gpu1 or intel-level-zero-gpu and intel-opencl-icd packages, with the user in the render group; on Windows the Intel Arc and Iris Xe graphics driver). Check that ZE_AFFINITY_MASK and ONEAPI_DEVICE_SELECTOR do not hide the GPU, and that it is one PyTorch supports (Arc A and B series, Core Ultra with Arc graphics, Data Center GPU Max).</source>
        <translation>PyTorch accede a las GPU Intel a través del runtime Level Zero del controlador de GPU: instala el controlador de GPU actual de Intel (en Linux, su runtime de cómputo, como los paquetes libze-intel-gpu1 o intel-level-zero-gpu e intel-opencl-icd, con el usuario en el grupo render; en Windows, el controlador de gráficos Intel Arc e Iris Xe). Comprueba que ZE_AFFINITY_MASK y ONEAPI_DEVICE_SELECTOR no oculten la GPU y que esta sea una de las que admite PyTorch (series Arc A y B, Core Ultra con gráficos Arc, Data Center GPU Max).</translation>
    </message>
    <message>
        <source>PyTorch sees no Apple GPU: {build} was built without MPS (torch.backends.mps.is_built() is False).</source>
        <translation>PyTorch no ve ninguna GPU de Apple: {build} se compiló sin MPS (torch.backends.mps.is_built() es False).</translation>
    </message>
    <message>
        <source>PyTorch&apos;s macOS builds from PyPI carry MPS (PyTorch 1.12 and newer): install torch from PyPI into this environment with a native arm64 Python on Apple silicon. A Python running under Rosetta (x86_64) gets the Intel build, and PyTorch publishes no Intel macOS builds after 2.2.</source>
        <translation>Las compilaciones de PyTorch para macOS de PyPI incluyen MPS (PyTorch 1.12 y posteriores): instala torch desde PyPI en este entorno con un Python arm64 nativo en Apple silicon. Un Python que se ejecuta bajo Rosetta (x86_64) obtiene la compilación para Intel, y PyTorch no publica compilaciones para macOS con Intel posteriores a la 2.2.</translation>
    </message>
    <message>
        <source>PyTorch has MPS but cannot use this Mac&apos;s GPU (macOS {runtime}).</source>
        <translation>PyTorch tiene MPS, pero no puede usar la GPU de este Mac (macOS {runtime}).</translation>
    </message>
    <message>
        <source>MPS needs a Mac with Apple silicon or a Metal-capable AMD GPU, and the macOS the PyTorch release names (macOS 14 for recent releases: &apos;The MPS backend is supported on macOS 14.0+&apos;). Update macOS, or install the torch release the wizard recommends for this one. In a virtual machine, CI runners included, MPS is usually not available.</source>
        <translation>MPS necesita un Mac con Apple silicon o con una GPU AMD compatible con Metal, y la versión de macOS que indique la versión de PyTorch (macOS 14 para las versiones recientes: &apos;The MPS backend is supported on macOS 14.0+&apos;). Actualiza macOS o instala la versión de torch que el asistente recomienda para el macOS actual. En una máquina virtual, incluidos los runners de CI, MPS no suele estar disponible.</translation>
    </message>
    <message>
        <source>The GPU trained only {speedup}x as fast as the CPU (expected at least {expected}x).</source>
        <translation>La GPU entrenó solo {speedup}x más rápido que la CPU (se esperaba al menos {expected}x).</translation>
    </message>
    <message>
        <source>Another program may be using the GPU, the card may be in a power-saving state or throttling from heat, or (laptops) the integrated GPU may be doing the display work the NVIDIA GPU should do: check `nvidia-smi` while the test runs, plug the laptop in, and choose the high-performance GPU for Python.</source>
        <translation>Puede que otro programa esté usando la GPU, que la tarjeta esté en modo de ahorro de energía o limitada por temperatura, o (en portátiles) que la GPU integrada esté haciendo el trabajo de pantalla que debería hacer la GPU NVIDIA: revisa `nvidia-smi` mientras se ejecuta la prueba, conecta el portátil a la corriente y elige la GPU de alto rendimiento para Python.</translation>
    </message>
    <message>
        <source>{library} could not be loaded (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): the program found no {library} library on the library path, or an incompatible copy of it.</source>
        <translation>No se pudo cargar {library} (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): el programa no encontró ninguna biblioteca de {library} en la ruta de bibliotecas, o encontró una copia incompatible.</translation>
    </message>
    <message>
        <source>Programs that load {library} at run time (faster-whisper and CTranslate2, ONNX Runtime, PyTorch) look for it on the library path. Where it came with pip ({wheel}; &apos;pip show {wheel}&apos; tells), put its folder there in the same environment before starting the program: &apos;export LD_LIBRARY_PATH=&quot;$(python -c &quot;import {module}; print({module}.__path__[0])&quot;)/lib:$LD_LIBRARY_PATH&quot;&apos;; otherwise install it (&apos;pip install {wheel}&apos;, or NVIDIA&apos;s packages). An LD_LIBRARY_PATH entry that points at another CUDA&apos;s copy (an older /usr/local/cuda, an AppImage&apos;s folder) loads the wrong one: remove it.</source>
        <translation>Los programas que cargan {library} en tiempo de ejecución (faster-whisper y CTranslate2, ONNX Runtime, PyTorch) lo buscan en la ruta de bibliotecas. Si vino con pip ({wheel}; &apos;pip show {wheel}&apos; lo indica), añade su carpeta a esa ruta en el mismo entorno antes de iniciar el programa: &apos;export LD_LIBRARY_PATH=&quot;$(python -c &quot;import {module}; print({module}.__path__[0])&quot;)/lib:$LD_LIBRARY_PATH&quot;&apos;; si no, instálalo (&apos;pip install {wheel}&apos;, o los paquetes de NVIDIA). Una entrada de LD_LIBRARY_PATH que apunta a la copia de otra CUDA (un /usr/local/cuda más antiguo, la carpeta de una AppImage) carga la equivocada: quítala.</translation>
    </message>
    <message>
        <source>{library} could not be loaded (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): the program found no {library} DLL on its search path, or an incompatible copy of it.</source>
        <translation>No se pudo cargar {library} (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): el programa no encontró ninguna DLL de {library} en su ruta de búsqueda, o encontró una copia incompatible.</translation>
    </message>
    <message>
        <source>Programs that load {library} at run time (faster-whisper and CTranslate2, ONNX Runtime, PyTorch) look for its DLLs on PATH. Where it came with pip ({wheel}; &apos;pip show {wheel}&apos; tells), put its bin folder on PATH in the same terminal before starting the program (PowerShell: $env:PATH = &quot;$(python -c &apos;import {module}; print({module}.__path__[0])&apos;)\bin;$env:PATH&quot;); otherwise install it (&apos;pip install {wheel}&apos;, or NVIDIA&apos;s installer with its bin folder on PATH). A PATH entry that points at another CUDA&apos;s copy loads the wrong one: move it after this one.</source>
        <translation>Los programas que cargan {library} en tiempo de ejecución (faster-whisper y CTranslate2, ONNX Runtime, PyTorch) buscan sus DLL en PATH. Si vino con pip ({wheel}; &apos;pip show {wheel}&apos; lo indica), añade su carpeta bin a PATH en la misma terminal antes de iniciar el programa (PowerShell: $env:PATH = &quot;$(python -c &apos;import {module}; print({module}.__path__[0])&apos;)\bin;$env:PATH&quot;); si no, instálalo (&apos;pip install {wheel}&apos;, o el instalador de NVIDIA con su carpeta bin en PATH). Una entrada de PATH que apunta a la copia de otra CUDA carga la equivocada: muévela detrás de esta.</translation>
    </message>
    <message>
        <source>This llama.cpp or Ollama build has no CUDA kernels for this GPU: ggml&apos;s CUDA code stopped with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>Esta compilación de llama.cpp u Ollama no tiene kernels de CUDA para esta GPU: el código CUDA de ggml se detuvo con &apos;no kernel image is available for execution on the device&apos;.</translation>
    </message>
    <message>
        <source>Ollama: update to the newest release, or go back to the last release that worked; a release can leave a GPU generation out (Ollama 0.11.11 picked CUDA 13 libraries without kernels for Pascal GPUs such as the GTX 10 series; 0.12.0 went back to CUDA 12 for them, ollama/ollama#12300). llama.cpp built yourself: build for this GPU, &apos;cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native&apos;. &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; shows the GPU&apos;s compute capability.</source>
        <translation>Ollama: actualiza a la versión más reciente o vuelve a la última versión que funcionaba; una versión puede dejar fuera una generación de GPU (Ollama 0.11.11 eligió bibliotecas de CUDA 13 sin kernels para GPU Pascal como la serie GTX 10; 0.12.0 volvió a CUDA 12 para ellas, ollama/ollama#12300). llama.cpp compilado por ti: compílalo para esta GPU, &apos;cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native&apos;. &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos; muestra la capacidad de cómputo de la GPU.</translation>
    </message>
    <message>
        <source>The NVIDIA driver changed since the last good state: {before} then, {after} now.</source>
        <translation>El controlador de NVIDIA cambió desde el último estado correcto: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>Nothing to do while the other checks pass: a newer driver runs every build an older one ran (NVIDIA CUDA Compatibility guide). A healthy verify records the new driver.</source>
        <translation>No hay nada que hacer mientras las demás comprobaciones pasen: un controlador más reciente ejecuta todas las compilaciones que ejecutaba uno anterior (guía CUDA Compatibility de NVIDIA). Una verificación correcta registra el nuevo controlador.</translation>
    </message>
    <message>
        <source>The NVIDIA driver ({before} at the last good state) no longer answers.</source>
        <translation>El controlador de NVIDIA ({before} en el último estado correcto) ya no responde.</translation>
    </message>
    <message>
        <source>The NVIDIA driver {driver} is too old for the framework build of {builds}.</source>
        <translation>El controlador de NVIDIA {driver} es demasiado antiguo para la compilación del framework de {builds}.</translation>
    </message>
    <message>
        <source>Fewer NVIDIA GPUs answer than at the last good state: {before} then, {after} now.</source>
        <translation>Responden menos GPU NVIDIA que en el último estado correcto: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>The NVIDIA GPUs changed since the last good state: {before} then, {after} now.</source>
        <translation>Las GPU NVIDIA cambiaron desde el último estado correcto: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>The Python interpreter of {env} ({python}) does not run any more: {error}</source>
        <translation>El intérprete de Python de {env} ({python}) ya no se ejecuta: {error}</translation>
    </message>
    <message>
        <source>The Python it was made from was probably removed or upgraded, or its folder was moved. Recreate the environment: {recreate}</source>
        <translation>Probablemente el Python a partir del cual se creó se eliminó o actualizó, o su carpeta se movió. Vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>The interpreter of {env} changed: {before} then, {after} now.</source>
        <translation>El intérprete de {env} cambió: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>Nothing to do while the framework still imports: the Python it was made from got a patch release.</source>
        <translation>No hay nada que hacer mientras el framework se siga importando: el Python a partir del cual se creó recibió una versión de parche.</translation>
    </message>
    <message>
        <source>{framework} is no longer installed in {env}.</source>
        <translation>{framework} ya no está instalado en {env}.</translation>
    </message>
    <message>
        <source>Reinstall the recorded build: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>Reinstala la compilación registrada: {reinstall}  O vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>{framework} no longer imports in {env}: {error}</source>
        <translation>{framework} ya no se importa en {env}: {error}</translation>
    </message>
    <message>
        <source>A later install broke it. Reinstall the recorded build: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>Una instalación posterior lo rompió. Reinstala la compilación registrada: {reinstall}  O vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>A CPU build of {framework} was swapped in for the CUDA build in {env}: {before} then, {after} now; it cannot use the GPU.</source>
        <translation>Se sustituyó la compilación CUDA de {framework} por una compilación para CPU en {env}: antes {before}, ahora {after}; no puede usar la GPU.</translation>
    </message>
    <message>
        <source>Reinstall the CUDA build: {reinstall}  Or recreate the environment: {recreate}  Install other packages with the environment activated, so pip and uv read its constraints file and cannot swap the build again.</source>
        <translation>Reinstala la compilación CUDA: {reinstall}  O vuelve a crear el entorno: {recreate}  Instala otros paquetes con el entorno activado, para que pip y uv lean su archivo de restricciones y no puedan volver a cambiar la compilación.</translation>
    </message>
    <message>
        <source>{framework} in {env} changed from {before} to {after}, the build its constraints file pins.</source>
        <translation>{framework} en {env} cambió de {before} a {after}, la compilación que fija su archivo de restricciones.</translation>
    </message>
    <message>
        <source>Nothing to do while the live test passes: the new build was pinned on purpose.</source>
        <translation>No hay nada que hacer mientras la prueba en vivo pase: la nueva compilación se fijó a propósito.</translation>
    </message>
    <message>
        <source>{framework} in {env} changed from {before} to {after}, which its constraints file does not allow.</source>
        <translation>{framework} en {env} cambió de {before} a {after}, lo que su archivo de restricciones no permite.</translation>
    </message>
    <message>
        <source>Put the pinned build back: {reinstall}  Or, to keep the new build, recreate the environment with it: {recreate}</source>
        <translation>Restaura la compilación fijada: {reinstall}  O, para conservar la nueva compilación, vuelve a crear el entorno con ella: {recreate}</translation>
    </message>
    <message>
        <source>The constraints file of {env} is missing: {path}</source>
        <translation>Falta el archivo de restricciones de {env}: {path}</translation>
    </message>
    <message>
        <source>Without it nothing stops a later install from replacing the framework build, and the environment&apos;s pip fails because its configuration names the file. Write the line &apos;{pin}&apos; into {path}, or recreate the environment: {recreate}</source>
        <translation>Sin él, nada impide que una instalación posterior reemplace la compilación del framework, y el pip del entorno falla porque su configuración menciona ese archivo. Escribe la línea &apos;{pin}&apos; en {path}, o vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>The constraints file of {env} no longer pins the framework: {path}</source>
        <translation>El archivo de restricciones de {env} ya no fija el framework: {path}</translation>
    </message>
    <message>
        <source>Nothing stops a later install from replacing the framework build. Add the line &apos;{pin}&apos; to {path}, or recreate the environment: {recreate}</source>
        <translation>Nada impide que una instalación posterior reemplace la compilación del framework. Añade la línea &apos;{pin}&apos; a {path}, o vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>{tool} in {env} does not read its constraints file {path}: {source} {why}.</source>
        <translation>{tool} en {env} no lee su archivo de restricciones {path}: {source} {why}.</translation>
    </message>
    <message>
        <source>Until it does, a later install fails or may replace the framework build. Recreate the environment: {recreate}  Or write {reference} in {source}.</source>
        <translation>Mientras no lo lea, una instalación posterior falla o puede reemplazar la compilación del framework. Vuelve a crear el entorno: {recreate}  O escribe {reference} en {source}.</translation>
    </message>
    <message>
        <source>The constraints file of {env} pins {pin}, but {installed} is installed.</source>
        <translation>El archivo de restricciones de {env} fija {pin}, pero está instalado {installed}.</translation>
    </message>
    <message>
        <source>Reinstall the pinned build: {reinstall}  Or, to keep the installed build, change the line in {path} to &apos;{wanted}&apos;.</source>
        <translation>Reinstala la compilación fijada: {reinstall}  O, para conservar la compilación instalada, cambia la línea de {path} a &apos;{wanted}&apos;.</translation>
    </message>
    <message>
        <source>The constraints file of {env} changed its pin: {before} then, {after} now.</source>
        <translation>El archivo de restricciones de {env} cambió su versión fijada: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>Nothing to do while the installed build matches it and the live test passes ({path}).</source>
        <translation>No hay nada que hacer mientras la compilación instalada coincida y la prueba en vivo pase ({path}).</translation>
    </message>
    <message>
        <source>{framework} in {env} sees fewer GPUs than at the last good state: {before} then, {after} now.</source>
        <translation>{framework} en {env} ve menos GPU que en el último estado correcto: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>The short live test in {env} gave {after}; at the last good state it gave {before}.</source>
        <translation>La prueba breve en vivo en {env} dio {after}; en el último estado correcto dio {before}.</translation>
    </message>
    <message>
        <source>The short live test in {env} gave {after}.</source>
        <translation>La prueba breve en vivo en {env} dio {after}.</translation>
    </message>
    <message>
        <source>The GPU in {env} still trains, but no longer clearly faster than the CPU ({before} then, {after} now).</source>
        <translation>La GPU de {env} sigue entrenando, pero ya no claramente más rápido que la CPU (antes {before}, ahora {after}).</translation>
    </message>
    <message>
        <source>NVIDIA CUDA wheels that {env} had at the last good state are no longer installed: {wheels}.</source>
        <translation>Ya no están instalados los wheels de CUDA de NVIDIA que {env} tenía en el último estado correcto: {wheels}.</translation>
    </message>
    <message>
        <source>The framework loads its CUDA libraries from them and cannot use the GPU without them. Put them back: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>El framework carga de ellos sus bibliotecas de CUDA y no puede usar la GPU sin ellos. Restáuralos: {reinstall}  O vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>NVIDIA CUDA wheels in {env} were replaced by another major version: {before} then, {after} now.</source>
        <translation>Los wheels de CUDA de NVIDIA de {env} se reemplazaron por otra versión principal: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>A framework build loads only the CUDA and cuDNN major versions it was built for (a cuDNN 8 build does not load cuDNN 9). Put the recorded ones back: {reinstall}  Or recreate the environment: {recreate}</source>
        <translation>Una compilación de un framework solo carga las versiones principales de CUDA y cuDNN para las que se compiló (una compilación para cuDNN 8 no carga cuDNN 9). Restaura los wheels registrados: {reinstall}  O vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>NVIDIA CUDA wheels in {env} changed within their major version: {before} then, {after} now.</source>
        <translation>Los wheels de CUDA de NVIDIA de {env} cambiaron dentro de su versión principal: antes {before}, ahora {after}.</translation>
    </message>
    <message>
        <source>A newer release of the same major version usually keeps working; an older one may not. If the short live test fails, put the recorded versions back: {reinstall}</source>
        <translation>Una versión más reciente con la misma versión principal suele seguir funcionando; una más antigua puede que no. Si la prueba breve en vivo falla, restaura las versiones registradas: {reinstall}</translation>
    </message>
    <message>
        <source>The start-up hook that makes the NVIDIA wheels&apos; DLLs visible to the Python of {env} is gone.</source>
        <translation>Falta el hook de inicio que hace visibles las DLL de los wheels de NVIDIA para el Python de {env}.</translation>
    </message>
    <message>
        <source>Without it TensorFlow finds no CUDA DLL when this environment&apos;s Python starts, unless the folders are on PATH. Recreate the environment, which writes the hook again: {recreate}</source>
        <translation>Sin él, TensorFlow no encuentra ninguna DLL de CUDA cuando se inicia el Python de este entorno, salvo que las carpetas estén en PATH. Vuelve a crear el entorno, lo que vuelve a escribir el hook: {recreate}</translation>
    </message>
    <message>
        <source>The start-up hook of {env} no longer puts the NVIDIA wheels&apos; DLL folders on the search path: {reason}</source>
        <translation>El hook de inicio de {env} ya no añade las carpetas de DLL de los wheels de NVIDIA a la ruta de búsqueda: {reason}</translation>
    </message>
    <message>
        <source>Without them TensorFlow finds no CUDA DLL when this environment&apos;s Python starts. Recreate the environment: {recreate}</source>
        <translation>Sin ellas, TensorFlow no encuentra ninguna DLL de CUDA cuando se inicia el Python de este entorno. Vuelve a crear el entorno: {recreate}</translation>
    </message>
    <message>
        <source>{folder}, which the wizard added to the {scope} PATH, is no longer on it.</source>
        <translation>{folder}, que el asistente añadió al PATH {scope}, ya no está en él.</translation>
    </message>
    <message>
        <source>{folder} was removed from the {scope} PATH with gpuwizard after the last good state.</source>
        <translation>{folder} se quitó del PATH {scope} con gpuwizard después del último estado correcto.</translation>
    </message>
    <message>
        <source>Nothing to do if that was meant; to add it back: {command}</source>
        <translation>No hay nada que hacer si fue intencionado; para volver a añadirla: {command}</translation>
    </message>
    <message>
        <source>{env} passed its live test, but it could not be recorded as the last good state: {error}</source>
        <translation>{env} pasó su prueba en vivo, pero no se pudo registrar como el último estado correcto: {error}</translation>
    </message>
    <message>
        <source>The setup works as it is. Make the wizard&apos;s folder writable again (free space, or its permissions), then run &apos;gpuwizard test --env {env}&apos;: a passed test records it, and &apos;gpuwizard verify&apos; compares with it from then on.</source>
        <translation>La configuración funciona tal como está. Haz que se pueda volver a escribir en la carpeta del asistente (libera espacio o revisa sus permisos) y luego ejecuta &apos;gpuwizard test --env {env}&apos;: una prueba superada la registra, y a partir de entonces &apos;gpuwizard verify&apos; compara con ella.</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: {detail}.</source>
        <translation>No se puede acceder al índice de paquetes {index}: {detail}.</translation>
    </message>
    <message>
        <source>If this network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>Si esta red necesita un proxy, define HTTPS_PROXY (y NO_PROXY), que leen pip y uv. O usa una réplica de este índice a la que llegue la red (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: the name {host} cannot be looked up (DNS).</source>
        <translation>No se puede acceder al índice de paquetes {index}: no se puede resolver el nombre {host} (DNS).</translation>
    </message>
    <message>
        <source>This network&apos;s name server does not know {host}, or blocks it. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>El servidor de nombres de esta red no conoce {host}, o lo bloquea. Si la red necesita un proxy, define HTTPS_PROXY (y NO_PROXY), que leen pip y uv. O usa una réplica de este índice a la que llegue la red (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: {host} refused the connection.</source>
        <translation>No se puede acceder al índice de paquetes {index}: {host} rechazó la conexión.</translation>
    </message>
    <message>
        <source>Nothing accepts connections at that address, or a firewall rejects them. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>Nada acepta conexiones en esa dirección, o un cortafuegos las rechaza. Si la red necesita un proxy, define HTTPS_PROXY (y NO_PROXY), que leen pip y uv. O usa una réplica de este índice a la que llegue la red (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: {host} did not answer in time.</source>
        <translation>No se puede acceder al índice de paquetes {index}: {host} no respondió a tiempo.</translation>
    </message>
    <message>
        <source>A firewall may drop the traffic without a word, or the network is very slow. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>Puede que un cortafuegos descarte el tráfico sin avisar, o que la red sea muy lenta. Si la red necesita un proxy, define HTTPS_PROXY (y NO_PROXY), que leen pip y uv. O usa una réplica de este índice a la que llegue la red (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: there is no network route to {host}.</source>
        <translation>No se puede acceder al índice de paquetes {index}: no hay ninguna ruta de red hasta {host}.</translation>
    </message>
    <message>
        <source>This machine is offline, or its network does not lead there. If the network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>Esta máquina no tiene conexión, o su red no llega hasta allí. Si la red necesita un proxy, define HTTPS_PROXY (y NO_PROXY), que leen pip y uv. O usa una réplica de este índice a la que llegue la red (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached safely: the certificate {host} showed cannot be verified (TLS).</source>
        <translation>No se puede acceder de forma segura al índice de paquetes {index}: no se puede verificar el certificado que presentó {host} (TLS).</translation>
    </message>
    <message>
        <source>Company networks often inspect encrypted traffic with a certificate authority of their own. Give its certificate (a PEM file from your IT department) to the tools: SSL_CERT_FILE for uv (or UV_NATIVE_TLS=1 to use the system&apos;s certificates), PIP_CERT for pip, REQUESTS_CA_BUNDLE for the wizard&apos;s own check. Do not turn certificate checks off: an index decides what code is installed. Or use a mirror of this index (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>Las redes de empresa suelen inspeccionar el tráfico cifrado con una autoridad de certificación propia. Indica su certificado (un archivo PEM de tu departamento de TI) a las herramientas: SSL_CERT_FILE para uv (o UV_NATIVE_TLS=1 para usar los certificados del sistema), PIP_CERT para pip, REQUESTS_CA_BUNDLE para la comprobación del propio asistente. No desactives la verificación de certificados: un índice decide qué código se instala. O usa una réplica de este índice (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: the proxy {proxy} does not let the request through.</source>
        <translation>No se puede acceder al índice de paquetes {index}: el proxy {proxy} no deja pasar la solicitud.</translation>
    </message>
    <message>
        <source>Check the proxy settings HTTPS_PROXY, HTTP_PROXY and NO_PROXY: the proxy&apos;s address and port, and whether it runs. Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>Revisa la configuración del proxy en HTTPS_PROXY, HTTP_PROXY y NO_PROXY: la dirección y el puerto del proxy, y si está en funcionamiento. O usa una réplica de este índice a la que llegue la red (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} cannot be reached: the proxy {proxy} asks for a login (HTTP 407).</source>
        <translation>No se puede acceder al índice de paquetes {index}: el proxy {proxy} pide iniciar sesión (HTTP 407).</translation>
    </message>
    <message>
        <source>Put the login in the proxy&apos;s address, as pip and uv read it: HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT (your IT department knows the proxy). Or use a mirror of this index that the network reaches (set {setting} to its address), or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>Incluye las credenciales en la dirección del proxy, tal como la leen pip y uv: HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT (tu departamento de TI conoce el proxy). O usa una réplica de este índice a la que llegue la red (define {setting} con su dirección), o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>The package index {index} answered HTTP {status} when asked for {project}.</source>
        <translation>El índice de paquetes {index} respondió HTTP {status} al pedirle {project}.</translation>
    </message>
    <message>
        <source>The index answers but does not serve {project} there: the address may be wrong, a mirror may not carry it, or it needs a login (401, 403). Check {setting}, or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a folder of wheels).</source>
        <translation>El índice responde, pero no ofrece {project} en esa dirección: puede que la dirección sea incorrecta, que una réplica no lo incluya o que requiera iniciar sesión (401, 403). Revisa {setting}, o instala desde una carpeta de wheels (gpuwizard env create NAME --find-links DIR --offline; en la página Elegir, una carpeta de wheels).</translation>
    </message>
    <message>
        <source>{index} cannot be reached ({detail}), so the new environment will have no pip.</source>
        <translation>No se puede acceder a {index} ({detail}), así que el nuevo entorno no tendrá pip.</translation>
    </message>
    <message>
        <source>Only pip comes from there: the framework comes from the plan&apos;s own index. Without pip, install more packages with &apos;uv pip install --python ENV_PYTHON PACKAGE&apos;; or set {setting} to a mirror this network reaches.</source>
        <translation>De ahí solo viene pip: el framework viene del índice propio del plan. Sin pip, instala más paquetes con &apos;uv pip install --python ENV_PYTHON PACKAGE&apos;; o define {setting} con una réplica a la que llegue esta red.</translation>
    </message>
    <message>
        <source>PyPI has the same release, PyTorch {version}, as its {build} build, which uses this machine&apos;s GPU too.</source>
        <translation>PyPI tiene la misma versión, PyTorch {version}, como su compilación {build}, que también usa la GPU de esta máquina.</translation>
    </message>
    <message>
        <source>PyPI has the same release, PyTorch {version}, as its {build} build: a CUDA build that runs on the CPU too, but downloads several GB more (the NVIDIA libraries come as separate packages).</source>
        <translation>PyPI tiene la misma versión, PyTorch {version}, como su compilación {build}: una compilación CUDA que también funciona en la CPU, pero que descarga varios GB más (las bibliotecas de NVIDIA vienen como paquetes aparte).</translation>
    </message>
    <message>
        <source>Python {python} for the new environment cannot be downloaded from {url}: {detail}.</source>
        <translation>No se puede descargar Python {python} para el nuevo entorno desde {url}: {detail}.</translation>
    </message>
    <message>
        <source>No Python {python} is installed here, so uv would download one from {host}. Install Python {python} yourself from your distribution&apos;s packages, then run the same command again: the wizard then uses it and downloads no Python. Or set UV_PYTHON_INSTALL_MIRROR to a mirror of python-build-standalone&apos;s releases that this network reaches, or HTTPS_PROXY (and NO_PROXY) if the network needs a proxy.</source>
        <translation>Aquí no hay ningún Python {python} instalado, así que uv descargaría uno de {host}. Instale usted Python {python} con los paquetes de su distribución y vuelva a ejecutar la misma orden: el asistente lo usará y no descargará ningún Python. O defina UV_PYTHON_INSTALL_MIRROR con un espejo de las versiones de python-build-standalone al que llegue esta red, o HTTPS_PROXY (y NO_PROXY) si la red necesita un proxy.</translation>
    </message>
    <message>
        <source>No Python {python} is installed here, so uv would download one from {host}. Install Python {python} yourself, then run the same command again: with the Python install manager, py install {python}; or with the installer from https://www.python.org/downloads/windows/. The wizard then uses it and downloads no Python. Or set UV_PYTHON_INSTALL_MIRROR to a mirror of python-build-standalone&apos;s releases that this network reaches, or HTTPS_PROXY (and NO_PROXY) if the network needs a proxy.</source>
        <translation>Aquí no hay ningún Python {python} instalado, así que uv descargaría uno de {host}. Instale usted Python {python} y vuelva a ejecutar la misma orden: con el administrador de instalación de Python, py install {python}; o con el instalador de https://www.python.org/downloads/windows/. El asistente lo usará y no descargará ningún Python. O defina UV_PYTHON_INSTALL_MIRROR con un espejo de las versiones de python-build-standalone al que llegue esta red, o HTTPS_PROXY (y NO_PROXY) si la red necesita un proxy.</translation>
    </message>
    <message>
        <source>No Python {python} is installed here, so uv would download one from {host}. Install Python {python} yourself with the installer from https://www.python.org/downloads/macos/, then run the same command again: the wizard then uses it and downloads no Python. Or set UV_PYTHON_INSTALL_MIRROR to a mirror of python-build-standalone&apos;s releases that this network reaches, or HTTPS_PROXY (and NO_PROXY) if the network needs a proxy.</source>
        <translation>Aquí no hay ningún Python {python} instalado, así que uv descargaría uno de {host}. Instale usted Python {python} con el instalador de https://www.python.org/downloads/macos/ y vuelva a ejecutar la misma orden: el asistente lo usará y no descargará ningún Python. O defina UV_PYTHON_INSTALL_MIRROR con un espejo de las versiones de python-build-standalone al que llegue esta red, o HTTPS_PROXY (y NO_PROXY) si la red necesita un proxy.</translation>
    </message>
    <message>
        <source>The folder of wheels {folder} is looked at beside the index, not instead of it.</source>
        <translation>La carpeta de wheels {folder} se consulta junto al índice, no en su lugar.</translation>
    </message>
    <message>
        <source>Add --offline to install from the folder alone (on the Choose page: only from this folder), when it holds the plan&apos;s build and all its dependencies for this Python.</source>
        <translation>Añade --offline para instalar solo desde la carpeta (en la página Elegir: solo desde esta carpeta), cuando contenga la compilación del plan y todas sus dependencias para este Python.</translation>
    </message>
    <message>
        <source>NVML could not start (&apos;Failed to initialize NVML: Unknown Error&apos;): in a container or pod this means it has lost access to the GPU devices.</source>
        <translation>NVML no pudo iniciarse (&apos;Failed to initialize NVML: Unknown Error&apos;): en un contenedor o pod, esto significa que ha perdido el acceso a los dispositivos de la GPU.</translation>
    </message>
    <message>
        <source>If nvidia-smi works on the host, recreate the container or pod to get the GPU back: when systemd manages the container&apos;s cgroups, &apos;systemctl daemon-reload&apos; (also run by package updates) drops its device access. To stop it happening again, as NVIDIA&apos;s Container Toolkit troubleshooting says: give GPUs through CDI (&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos;, then &apos;docker run --device nvidia.com/gpu=all&apos;), or create the device links (&apos;sudo nvidia-ctk system create-dev-char-symlinks --create-all&apos;), or set Docker&apos;s cgroup driver to cgroupfs (&apos;&quot;exec-opts&quot;: [&quot;native.cgroupdriver=cgroupfs&quot;]&apos; in /etc/docker/daemon.json) and restart Docker. If nvidia-smi fails on the host too, reinstall the NVIDIA driver and restart.</source>
        <translation>Si nvidia-smi funciona en el host, vuelve a crear el contenedor o pod para recuperar la GPU: cuando systemd gestiona los cgroups del contenedor, &apos;systemctl daemon-reload&apos; (que también ejecutan las actualizaciones de paquetes) le quita el acceso a los dispositivos. Para evitar que vuelva a ocurrir, como indica la guía de solución de problemas del Container Toolkit de NVIDIA: proporciona las GPU mediante CDI (&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos; y luego &apos;docker run --device nvidia.com/gpu=all&apos;), o crea los enlaces de dispositivo (&apos;sudo nvidia-ctk system create-dev-char-symlinks --create-all&apos;), o cambia el controlador de cgroups de Docker a cgroupfs (&apos;&quot;exec-opts&quot;: [&quot;native.cgroupdriver=cgroupfs&quot;]&apos; en /etc/docker/daemon.json) y reinicia Docker. Si nvidia-smi también falla en el host, reinstala el controlador de NVIDIA y reinicia.</translation>
    </message>
    <message>
        <source>Docker cannot give the container a GPU (&apos;could not select device driver ... with capabilities: [[gpu]]&apos;): the NVIDIA Container Toolkit is missing or Docker is not set up to use it.</source>
        <translation>Docker no puede asignar una GPU al contenedor (&apos;could not select device driver ... with capabilities: [[gpu]]&apos;): falta el NVIDIA Container Toolkit o Docker no está configurado para usarlo.</translation>
    </message>
    <message>
        <source>Install the NVIDIA Container Toolkit on the host (package nvidia-container-toolkit, from NVIDIA&apos;s repository as its install guide says), then register it with Docker and restart Docker: &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and &apos;sudo systemctl restart docker&apos;. Check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. On Windows, Docker Desktop uses the GPU through WSL 2: update Docker Desktop and the NVIDIA driver on Windows.</source>
        <translation>Instala el NVIDIA Container Toolkit en el host (paquete nvidia-container-toolkit, desde el repositorio de NVIDIA, como indica su guía de instalación), regístralo en Docker y reinicia Docker: &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; y &apos;sudo systemctl restart docker&apos;. Compruébalo con &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. En Windows, Docker Desktop usa la GPU a través de WSL 2: actualiza Docker Desktop y el controlador de NVIDIA en Windows.</translation>
    </message>
    <message>
        <source>Windows ran out of memory to commit ([WinError 1455]: the paging file is too small for this operation).</source>
        <translation>Windows se quedó sin memoria que confirmar ([WinError 1455]: el archivo de paginación es demasiado pequeño para completar la operación).</translation>
    </message>
    <message>
        <source>This is not a missing DLL: loading the CUDA libraries needs more memory than RAM and the page file allow. Start fewer processes that load PyTorch: lower the DataLoader&apos;s num_workers (to 2, or 0), and close other programs. Or let Windows manage a larger page file on a drive with free space (System Properties &gt; Advanced &gt; Performance Settings &gt; Advanced &gt; Virtual memory; &apos;System managed size&apos;, or at least the size of the RAM), then restart.</source>
        <translation>No falta ninguna DLL: cargar las bibliotecas de CUDA necesita más memoria de la que permiten la RAM y el archivo de paginación. Inicia menos procesos que carguen PyTorch: reduce num_workers del DataLoader (a 2, o a 0) y cierra otros programas. O deja que Windows gestione un archivo de paginación mayor en una unidad con espacio libre (Propiedades del sistema &gt; Opciones avanzadas &gt; Configuración de rendimiento &gt; Opciones avanzadas &gt; Memoria virtual; &apos;Tamaño administrado por el sistema&apos;, o al menos el tamaño de la RAM) y luego reinicia.</translation>
    </message>
    <message>
        <source>XLA (TensorFlow, JAX) found no ptxas to compile its GPU kernels (&apos;No PTX compilation provider&apos; or no suitable ptxas).</source>
        <translation>XLA (TensorFlow, JAX) no encontró ningún ptxas para compilar sus kernels de GPU (&apos;No PTX compilation provider&apos; o ningún ptxas adecuado).</translation>
    </message>
    <message>
        <source>Install the CUDA compiler wheel for the CUDA of your framework build: &apos;pip install nvidia-cuda-nvcc-cu12&apos; for CUDA 12 (brought by &apos;pip install -U &quot;jax[cuda12]&quot;&apos; and &apos;pip install tensorflow[and-cuda]&apos;), or a CUDA toolkit whose ptxas knows your GPU (CUDA 12.8 or newer for an RTX 50-series GPU, sm_120), and put its bin folder on PATH (or set XLA_FLAGS=--xla_gpu_cuda_data_dir=CUDA_FOLDER).</source>
        <translation>Instala el wheel del compilador de CUDA para la versión de CUDA de la compilación de tu framework: &apos;pip install nvidia-cuda-nvcc-cu12&apos; para CUDA 12 (lo instalan &apos;pip install -U &quot;jax[cuda12]&quot;&apos; y &apos;pip install tensorflow[and-cuda]&apos;), o un CUDA toolkit cuyo ptxas reconozca tu GPU (CUDA 12.8 o posterior para una GPU RTX serie 50, sm_120), y pon su carpeta bin en PATH (o define XLA_FLAGS=--xla_gpu_cuda_data_dir=CUDA_FOLDER).</translation>
    </message>
    <message>
        <source>The ptxas that XLA (TensorFlow, JAX) uses is too old for the framework build or the GPU.</source>
        <translation>El ptxas que usa XLA (TensorFlow, JAX) es demasiado antiguo para la compilación del framework o para la GPU.</translation>
    </message>
    <message>
        <source>XLA takes the first ptxas it finds, often an old CUDA toolkit&apos;s on PATH. Install the CUDA compiler wheel for the CUDA of your framework build (&apos;pip install -U nvidia-cuda-nvcc-cu12&apos; for CUDA 12, brought by &apos;jax[cuda12]&apos; and &apos;tensorflow[and-cuda]&apos;), or a CUDA toolkit at least as new as the framework&apos;s CUDA (12.8 or newer for an RTX 50-series GPU, sm_120), and put its bin folder first on PATH, before the old toolkit&apos;s.</source>
        <translation>XLA usa el primer ptxas que encuentra, a menudo el de un CUDA toolkit antiguo que está en PATH. Instala el wheel del compilador de CUDA para la versión de CUDA de la compilación de tu framework (&apos;pip install -U nvidia-cuda-nvcc-cu12&apos; para CUDA 12, lo instalan &apos;jax[cuda12]&apos; y &apos;tensorflow[and-cuda]&apos;), o un CUDA toolkit al menos tan reciente como la versión de CUDA del framework (12.8 o posterior para una GPU RTX serie 50, sm_120), y pon su carpeta bin la primera en PATH, antes que la del toolkit antiguo.</translation>
    </message>
    <message>
        <source>PyTorch was built with cuDNN {compiled}, but another cuDNN, {loaded}, was loaded first.</source>
        <translation>PyTorch se compiló con cuDNN {compiled}, pero antes se cargó otro cuDNN, {loaded}.</translation>
    </message>
    <message>
        <source>PyTorch brings its own cuDNN (the nvidia-cudnn wheel it installed, or torch/lib in older wheels); a system or conda cuDNN on the library search path shadows it. Remove that cuDNN&apos;s folder from LD_LIBRARY_PATH (PATH on Windows) for this environment, or unset LD_LIBRARY_PATH, then start Python again. If the nvidia-cudnn wheel is missing, reinstall torch from the same index it came from. Only a cuDNN {major}.x at least as new as {compiled} can replace the bundled one.</source>
        <translation>PyTorch trae su propio cuDNN (el wheel nvidia-cudnn que instaló, o torch/lib en wheels más antiguos); un cuDNN del sistema o de conda en la ruta de búsqueda de bibliotecas lo oculta. Quita la carpeta de ese cuDNN de LD_LIBRARY_PATH (PATH en Windows) para este entorno, o elimina LD_LIBRARY_PATH, y vuelve a iniciar Python. Si falta el wheel nvidia-cudnn, reinstala torch desde el mismo índice del que procede. Solo un cuDNN {major}.x al menos tan reciente como {compiled} puede sustituir al incluido.</translation>
    </message>
    <message>
        <source>PyTorch found no NVIDIA driver, so it cannot use a GPU here.</source>
        <translation>PyTorch no encontró ningún controlador de NVIDIA, así que no puede usar una GPU aquí.</translation>
    </message>
    <message>
        <source>If this computer has an NVIDIA GPU, install its driver from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;) and restart; &apos;nvidia-smi&apos; must then list the GPU. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;, which needs the NVIDIA Container Toolkit on the host); in WSL 2, install the driver on Windows, not inside WSL. Without an NVIDIA GPU (a Mac, Intel or AMD graphics), run on the CPU: use the device &apos;cpu&apos; instead of &apos;cuda&apos; or &apos;.cuda()&apos;.</source>
        <translation>Si este equipo tiene una GPU NVIDIA, instala su controlador desde https://www.nvidia.com/Download/index.aspx (en Ubuntu: &apos;sudo ubuntu-drivers install&apos;) y reinicia; después &apos;nvidia-smi&apos; debe mostrar la GPU. En un contenedor, inícialo con acceso a la GPU (&apos;docker run --gpus all ...&apos;, que necesita el NVIDIA Container Toolkit en el host); en WSL 2, instala el controlador en Windows, no dentro de WSL. Sin una GPU NVIDIA (un Mac, gráficos Intel o AMD), ejecuta en la CPU: usa el dispositivo &apos;cpu&apos; en lugar de &apos;cuda&apos; o &apos;.cuda()&apos;.</translation>
    </message>
    <message>
        <source>torchvision does not fit the installed torch: its compiled operators ({operator}) did not load.</source>
        <translation>torchvision no es compatible con el torch instalado: sus operadores compilados ({operator}) no se cargaron.</translation>
    </message>
    <message>
        <source>torch and torchvision are released in pairs (torch 2.5 with torchvision 0.20, 2.6 with 0.21, and so on) and must come from the same build variant (CPU, cu121, cu126, ...). Install the torchvision paired with your torch from the same index, for example &apos;pip install torch==X torchvision==Y --index-url https://download.pytorch.org/whl/cu126&apos;, or reinstall both together; check with &apos;pip list&apos; that only one torch is installed.</source>
        <translation>torch y torchvision se publican por parejas (torch 2.5 con torchvision 0.20, 2.6 con 0.21, etc.) y deben proceder de la misma variante de compilación (CPU, cu121, cu126, ...). Instala el torchvision que corresponde a tu torch desde el mismo índice, por ejemplo &apos;pip install torch==X torchvision==Y --index-url https://download.pytorch.org/whl/cu126&apos;, o reinstala ambos a la vez; comprueba con &apos;pip list&apos; que solo haya un torch instalado.</translation>
    </message>
    <message>
        <source>cuBLAS could not start on the GPU ({status}): almost always, GPU memory ran out.</source>
        <translation>cuBLAS no pudo iniciarse en la GPU ({status}): casi siempre se debe a que se agotó la memoria de la GPU.</translation>
    </message>
    <message>
        <source>Free GPU memory: close other programs or notebooks that hold it (&apos;nvidia-smi&apos; lists them), use a smaller batch size or model, or load the model in half precision. With several GPUs, pick one with free memory (CUDA_VISIBLE_DEVICES). If memory is free, check that the framework build fits the GPU and driver.</source>
        <translation>Libera memoria de la GPU: cierra otros programas o notebooks que la ocupen (&apos;nvidia-smi&apos; los muestra), usa un tamaño de lote o un modelo más pequeño, o carga el modelo en media precisión. Con varias GPU, elige una con memoria libre (CUDA_VISIBLE_DEVICES). Si hay memoria libre, comprueba que la compilación del framework sea compatible con la GPU y el controlador.</translation>
    </message>
    <message>
        <source>TensorFlow could not create a cuBLAS handle ({status}): almost always, GPU memory ran out.</source>
        <translation>TensorFlow no pudo crear un handle de cuBLAS ({status}): casi siempre se debe a que se agotó la memoria de la GPU.</translation>
    </message>
    <message>
        <source>TensorFlow reserves nearly all GPU memory at start, leaving none for cuBLAS. Enable memory growth before building the model: &apos;tf.config.experimental.set_memory_growth(gpu, True)&apos; for each GPU, or set TF_FORCE_GPU_ALLOW_GROWTH=true. Also close other programs that use the GPU (&apos;nvidia-smi&apos; lists them) and try a smaller batch size.</source>
        <translation>TensorFlow reserva casi toda la memoria de la GPU al iniciarse y no deja nada para cuBLAS. Activa el crecimiento de memoria antes de construir el modelo: &apos;tf.config.experimental.set_memory_growth(gpu, True)&apos; para cada GPU, o define TF_FORCE_GPU_ALLOW_GROWTH=true. Cierra también otros programas que usen la GPU (&apos;nvidia-smi&apos; los muestra) y prueba con un tamaño de lote más pequeño.</translation>
    </message>
    <message>
        <source>The container was started without GPU access: its NVIDIA image says &apos;The NVIDIA Driver was not detected&apos;, so GPU functionality is not available inside it.</source>
        <translation>El contenedor se inició sin acceso a la GPU: su imagen de NVIDIA indica &apos;The NVIDIA Driver was not detected&apos;, por lo que la funcionalidad de GPU no está disponible dentro de él.</translation>
    </message>
    <message>
        <source>Start the container with the GPU: &apos;docker run --gpus all IMAGE&apos; (or &apos;--device nvidia.com/gpu=all&apos; with CDI). In docker compose, give the service a device reservation: under deploy: resources: reservations: devices: an entry with &apos;driver: nvidia&apos;, &apos;count: all&apos; and &apos;capabilities: [gpu]&apos;. The host needs the NVIDIA driver and the NVIDIA Container Toolkit; check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. With Docker Desktop on Windows, use the WSL 2 backend and a current NVIDIA driver on Windows.</source>
        <translation>Inicia el contenedor con la GPU: &apos;docker run --gpus all IMAGE&apos; (o &apos;--device nvidia.com/gpu=all&apos; con CDI). En docker compose, asigna al servicio una reserva de dispositivos: en deploy: resources: reservations: devices: una entrada con &apos;driver: nvidia&apos;, &apos;count: all&apos; y &apos;capabilities: [gpu]&apos;. El host necesita el controlador de NVIDIA y el NVIDIA Container Toolkit; compruébalo con &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. Con Docker Desktop en Windows, usa el backend de WSL 2 y un controlador de NVIDIA actual en Windows.</translation>
    </message>
    <message>
        <source>The container was started without GPU access (&apos;docker run&apos; without &apos;--gpus&apos;): nvidia-smi inside it cannot reach the NVIDIA driver, whatever the host has.</source>
        <translation>El contenedor se inició sin acceso a la GPU (&apos;docker run&apos; sin &apos;--gpus&apos;): nvidia-smi dentro de él no puede llegar al controlador de NVIDIA, tenga lo que tenga el host.</translation>
    </message>
    <message>
        <source>The container was started with a GPU option, yet its NVIDIA image saw no driver (&apos;The NVIDIA Driver was not detected&apos;).</source>
        <translation>El contenedor se inició con una opción de GPU, pero su imagen de NVIDIA no detectó ningún controlador (&apos;The NVIDIA Driver was not detected&apos;).</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos; inside the container. If it lists the GPU, the message is wrong and can be ignored: older NVIDIA images print it under WSL 2 although the GPU works (newer images no longer do). If it fails, the host does not pass its driver in: check &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;, reinstall the NVIDIA Container Toolkit, run &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and restart Docker. With Docker Desktop on Windows, update Docker Desktop and the NVIDIA driver on Windows; on Linux, Docker installed as a snap or Docker Desktop&apos;s VM cannot use the host&apos;s driver (use Docker Engine).</source>
        <translation>Ejecuta &apos;nvidia-smi&apos; dentro del contenedor. Si muestra la GPU, el mensaje es erróneo y puede ignorarse: las imágenes de NVIDIA antiguas lo muestran en WSL 2 aunque la GPU funcione (las más recientes ya no lo hacen). Si falla, el host no transmite su controlador al contenedor: comprueba &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;, reinstala el NVIDIA Container Toolkit, ejecuta &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; y reinicia Docker. Con Docker Desktop en Windows, actualiza Docker Desktop y el controlador de NVIDIA en Windows; en Linux, Docker instalado como snap o la máquina virtual de Docker Desktop no pueden usar el controlador del host (usa Docker Engine).</translation>
    </message>
    <message>
        <source>The NVIDIA Container Toolkit could not give the container its GPU (nvidia-container-cli: {stage}: {detail}).</source>
        <translation>El NVIDIA Container Toolkit no pudo proporcionar la GPU al contenedor (nvidia-container-cli: {stage}: {detail}).</translation>
    </message>
    <message>
        <source>Check the host first: &apos;nvidia-smi&apos; must work there. Then reinstall or update the NVIDIA Container Toolkit (package nvidia-container-toolkit), run &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and &apos;sudo systemctl restart docker&apos;, and check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. For details, run &apos;nvidia-container-cli -k -d /dev/tty info&apos; on the host.</source>
        <translation>Comprueba primero el host: &apos;nvidia-smi&apos; debe funcionar allí. Después, reinstala o actualiza el NVIDIA Container Toolkit (paquete nvidia-container-toolkit), ejecuta &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; y &apos;sudo systemctl restart docker&apos;, y compruébalo con &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;. Para obtener más detalles, ejecuta &apos;nvidia-container-cli -k -d /dev/tty info&apos; en el host.</translation>
    </message>
    <message>
        <source>The NVIDIA Container Toolkit could not load the host&apos;s NVIDIA driver library ({library}), so Docker could not start the container with a GPU.</source>
        <translation>El NVIDIA Container Toolkit no pudo cargar la biblioteca del controlador de NVIDIA del host ({library}), por lo que Docker no pudo iniciar el contenedor con una GPU.</translation>
    </message>
    <message>
        <source>The toolkit takes the driver from the host. Run &apos;nvidia-smi&apos; on the host: if it fails, install the NVIDIA driver there (https://www.nvidia.com/Download/index.aspx or your distribution&apos;s package) and restart. If it works, Docker runs where it cannot see the driver: Docker installed as a snap or Docker Desktop on Linux cannot use it (install Docker Engine from Docker&apos;s repository), and rootless Docker needs &apos;sudo nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place&apos;. Then &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos;, restart Docker, and check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;.</source>
        <translation>El toolkit toma el controlador del host. Ejecuta &apos;nvidia-smi&apos; en el host: si falla, instala allí el controlador de NVIDIA (https://www.nvidia.com/Download/index.aspx o el paquete de tu distribución) y reinicia. Si funciona, Docker se ejecuta donde no puede ver el controlador: Docker instalado como snap o Docker Desktop en Linux no pueden usarlo (instala Docker Engine desde el repositorio de Docker), y Docker sin root necesita &apos;sudo nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place&apos;. Después ejecuta &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos;, reinicia Docker y compruébalo con &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;.</translation>
    </message>
    <message>
        <source>The NVIDIA Container Toolkit could not mount the host&apos;s driver files into the container (nvidia-container-cli: mount error: {detail}).</source>
        <translation>El NVIDIA Container Toolkit no pudo montar los archivos del controlador del host en el contenedor (nvidia-container-cli: mount error: {detail}).</translation>
    </message>
    <message>
        <source>&apos;file exists&apos; means the image already contains a driver file that the toolkit mounts from the host (the path in the message: libnvidia-ml.so.1, nvidia-smi, libcuda.so), for example because it was saved with &apos;docker commit&apos; from a running GPU container or NVIDIA driver packages were installed in it. Rebuild the image from its Dockerfile without driver packages (the toolkit brings the host&apos;s driver), or delete those files in the image. Other mount errors often follow a driver update: restart the host.</source>
        <translation>&apos;file exists&apos; significa que la imagen ya contiene un archivo del controlador que el toolkit monta desde el host (la ruta del mensaje: libnvidia-ml.so.1, nvidia-smi, libcuda.so), por ejemplo porque se guardó con &apos;docker commit&apos; a partir de un contenedor de GPU en ejecución o porque se instalaron en ella paquetes del controlador de NVIDIA. Vuelve a construir la imagen a partir de su Dockerfile sin paquetes del controlador (el toolkit aporta el controlador del host), o elimina esos archivos de la imagen. Otros errores de montaje suelen aparecer tras una actualización del controlador: reinicia el host.</translation>
    </message>
    <message>
        <source>The container image needs a driver that supports CUDA {cuda} or newer, and the host&apos;s NVIDIA driver is older (nvidia-container-cli: unsatisfied condition: cuda&gt;={cuda}).</source>
        <translation>La imagen del contenedor necesita un controlador compatible con CUDA {cuda} o posterior, y el controlador de NVIDIA del host es más antiguo (nvidia-container-cli: unsatisfied condition: cuda&gt;={cuda}).</translation>
    </message>
    <message>
        <source>&apos;nvidia-smi&apos; on the host shows the newest CUDA its driver supports (&apos;CUDA Version&apos;). Either update the host&apos;s NVIDIA driver to one that supports CUDA {cuda} (on Windows with Docker Desktop, the Windows driver), or use a tag of the image built for the CUDA your driver supports. Setting NVIDIA_DISABLE_REQUIRES=true skips the check, but the program then fails when it needs the newer CUDA, unless the GPU supports CUDA forward compatibility (data-center GPUs).</source>
        <translation>&apos;nvidia-smi&apos; en el host muestra la versión de CUDA más reciente que admite su controlador (&apos;CUDA Version&apos;). Actualiza el controlador de NVIDIA del host a uno compatible con CUDA {cuda} (en Windows con Docker Desktop, el controlador de Windows), o usa una etiqueta de la imagen creada para la versión de CUDA que admite tu controlador. Definir NVIDIA_DISABLE_REQUIRES=true omite la comprobación, pero entonces el programa falla cuando necesita la versión de CUDA más reciente, a menos que la GPU admita la compatibilidad hacia adelante de CUDA (GPU para centros de datos).</translation>
    </message>
    <message>
        <source>Docker does not know the &apos;nvidia&apos; runtime (&apos;unknown or invalid runtime name: nvidia&apos;): the NVIDIA Container Toolkit is missing or not registered with this Docker daemon.</source>
        <translation>Docker no conoce el runtime &apos;nvidia&apos; (&apos;unknown or invalid runtime name: nvidia&apos;): falta el NVIDIA Container Toolkit o no está registrado en este daemon de Docker.</translation>
    </message>
    <message>
        <source>Install the NVIDIA Container Toolkit on the host, register it and restart Docker: &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; and &apos;sudo systemctl restart docker&apos;; &apos;docker info&apos; must then list nvidia under Runtimes. Rootless Docker reads its own ~/.config/docker/daemon.json: add &apos;--config=$HOME/.config/docker/daemon.json&apos; and restart it with &apos;systemctl --user restart docker&apos;. Docker Desktop (Windows) has no nvidia runtime: remove &apos;--runtime=nvidia&apos; or compose&apos;s &apos;runtime: nvidia&apos; and use &apos;--gpus all&apos; or a compose device reservation with &apos;capabilities: [gpu]&apos; instead.</source>
        <translation>Instala el NVIDIA Container Toolkit en el host, regístralo y reinicia Docker: &apos;sudo nvidia-ctk runtime configure --runtime=docker&apos; y &apos;sudo systemctl restart docker&apos;; después, &apos;docker info&apos; debe mostrar nvidia en Runtimes. Docker en modo rootless lee su propio ~/.config/docker/daemon.json: añade &apos;--config=$HOME/.config/docker/daemon.json&apos; y reinícialo con &apos;systemctl --user restart docker&apos;. Docker Desktop (Windows) no tiene el runtime nvidia: quita &apos;--runtime=nvidia&apos; o el &apos;runtime: nvidia&apos; de compose y usa en su lugar &apos;--gpus all&apos; o una reserva de dispositivos de compose con &apos;capabilities: [gpu]&apos;.</translation>
    </message>
    <message>
        <source>Kubernetes cannot schedule the pod: no node has a free nvidia.com/gpu (&apos;Insufficient nvidia.com/gpu&apos;).</source>
        <translation>Kubernetes no puede planificar el pod: ningún nodo tiene un nvidia.com/gpu libre (&apos;Insufficient nvidia.com/gpu&apos;).</translation>
    </message>
    <message>
        <source>Run &apos;kubectl describe node NODE&apos; on the GPU node: if Allocatable shows no nvidia.com/gpu, the NVIDIA device plugin is not running or not working there; install it (or the NVIDIA GPU Operator) and check its pod&apos;s log with &apos;kubectl logs&apos;. If the node shows GPUs, other pods hold them all: wait, or lower the pod&apos;s nvidia.com/gpu limit. With MIG or time-slicing, request the resource name the node advertises (such as nvidia.com/mig-1g.10gb).</source>
        <translation>Ejecuta &apos;kubectl describe node NODE&apos; para el nodo de GPU: si Allocatable no muestra nvidia.com/gpu, el NVIDIA device plugin no se está ejecutando o no funciona allí; instálalo (o el NVIDIA GPU Operator) y revisa el registro de su pod con &apos;kubectl logs&apos;. Si el nodo muestra GPU, otros pods las ocupan todas: espera o reduce el límite nvidia.com/gpu del pod. Con MIG o time-slicing, solicita el nombre de recurso que anuncia el nodo (como nvidia.com/mig-1g.10gb).</translation>
    </message>
    <message>
        <source>The NVIDIA device plugin found no usable GPU driver on its node, so the node advertises no nvidia.com/gpu and GPU pods stay Pending.</source>
        <translation>El NVIDIA device plugin no encontró ningún controlador de GPU utilizable en su nodo, por lo que el nodo no anuncia nvidia.com/gpu y los pods de GPU se quedan en Pending.</translation>
    </message>
    <message>
        <source>On the node, check that &apos;nvidia-smi&apos; works, then make the container runtime use the NVIDIA runtime: for containerd &apos;sudo nvidia-ctk runtime configure --runtime=containerd&apos; and &apos;sudo systemctl restart containerd&apos; (for CRI-O &apos;--runtime=crio&apos;), and either make nvidia the default runtime or deploy the plugin with a RuntimeClass &apos;nvidia&apos; (Helm: --set runtimeClassName=nvidia). Then restart the device plugin pod. The NVIDIA GPU Operator sets all of this up.</source>
        <translation>En el nodo, comprueba que &apos;nvidia-smi&apos; funciona y luego haz que el runtime de contenedores use el runtime de NVIDIA: para containerd, &apos;sudo nvidia-ctk runtime configure --runtime=containerd&apos; y &apos;sudo systemctl restart containerd&apos; (para CRI-O, &apos;--runtime=crio&apos;), y convierte nvidia en el runtime predeterminado o despliega el plugin con una RuntimeClass &apos;nvidia&apos; (Helm: --set runtimeClassName=nvidia). Después, reinicia el pod del device plugin. El NVIDIA GPU Operator configura todo esto.</translation>
    </message>
    <message>
        <source>libcuda.so, the driver library that Windows provides to WSL 2, was not found: in WSL it lives in /usr/lib/wsl/lib.</source>
        <translation>No se encontró libcuda.so, la biblioteca del controlador que Windows proporciona a WSL 2: en WSL se encuentra en /usr/lib/wsl/lib.</translation>
    </message>
    <message>
        <source>Put /usr/lib/wsl/lib on the loader path: &apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos; (add it to ~/.bashrc to keep it). WSL&apos;s loader cache knows only libcuda.so.1 there, so programs that load &apos;libcuda.so&apos; fail without it. If /usr/lib/wsl/lib holds no libcuda.so at all, update the NVIDIA driver on Windows and run &apos;wsl --shutdown&apos;. Do not install a Linux NVIDIA driver inside WSL: the Windows driver serves WSL 2.</source>
        <translation>Añade /usr/lib/wsl/lib a la ruta del cargador: &apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos; (agrégalo a ~/.bashrc para conservarlo). La caché del cargador de WSL solo conoce libcuda.so.1 en esa carpeta, por lo que los programas que cargan &apos;libcuda.so&apos; fallan sin ello. Si /usr/lib/wsl/lib no contiene ningún libcuda.so, actualiza el controlador de NVIDIA en Windows y ejecuta &apos;wsl --shutdown&apos;. No instales un controlador de NVIDIA para Linux dentro de WSL: el controlador de Windows da servicio a WSL 2.</translation>
    </message>
    <message>
        <source>ldconfig says /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link: a harmless note in WSL 2.</source>
        <translation>ldconfig indica que /usr/lib/wsl/lib/libcuda.so.1 no es un enlace simbólico: es un aviso inofensivo en WSL 2.</translation>
    </message>
    <message>
        <source>The Windows NVIDIA driver gives WSL copies of libcuda.so instead of links, and ldconfig notes it on every package install. It does not stop the GPU from working and needs no fix. Only if a program then cannot find libcuda.so, add /usr/lib/wsl/lib to LD_LIBRARY_PATH.</source>
        <translation>El controlador de NVIDIA para Windows proporciona a WSL copias de libcuda.so en lugar de enlaces, y ldconfig lo señala en cada instalación de paquetes. No impide que la GPU funcione y no requiere corrección. Solo si después un programa no encuentra libcuda.so, añade /usr/lib/wsl/lib a LD_LIBRARY_PATH.</translation>
    </message>
    <message>
        <source>Inside WSL 2, the NVIDIA tools could not reach the GPU (&apos;{evidence}&apos;): most often a Linux NVIDIA driver or nvidia-utils package installed inside WSL hides the Windows driver.</source>
        <translation>Dentro de WSL 2, las herramientas de NVIDIA no pudieron acceder a la GPU (&apos;{evidence}&apos;): lo más habitual es que un controlador de NVIDIA para Linux o un paquete nvidia-utils instalado dentro de WSL oculte el controlador de Windows.</translation>
    </message>
    <message>
        <source>JAX could not load {library} (&apos;{evidence}&apos;), so its CUDA backend did not start and JAX runs on the CPU.</source>
        <translation>JAX no pudo cargar {library} (&apos;{evidence}&apos;), así que su backend de CUDA no arrancó y JAX se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>With &apos;jax[cuda12]&apos; CUDA&apos;s libraries come as nvidia-* wheels ({wheel}). Usually LD_LIBRARY_PATH or LD_PRELOAD points at another CUDA (a cluster&apos;s module, the NVIDIA HPC SDK, /usr/local/cuda), whose copy is found first or hides the wheel&apos;s: for this environment run &apos;unset LD_LIBRARY_PATH LD_PRELOAD&apos; (JAX&apos;s install guide, https://docs.jax.dev/en/latest/installation.html: with the pip CUDA wheels it must not point to other CUDA libraries), then &apos;pip install -U &quot;jax[cuda12]&quot;&apos; again. With a local CUDA (&apos;jax[cuda12_local]&apos;), install the toolkit&apos;s {library} and put its lib folder on LD_LIBRARY_PATH.</source>
        <translation>Con &apos;jax[cuda12]&apos; las bibliotecas de CUDA llegan como wheels nvidia-* ({wheel}). Normalmente LD_LIBRARY_PATH o LD_PRELOAD apuntan a otro CUDA (un módulo del clúster, el NVIDIA HPC SDK, /usr/local/cuda), cuya copia se encuentra primero u oculta la del wheel: para este entorno ejecuta &apos;unset LD_LIBRARY_PATH LD_PRELOAD&apos; (la guía de instalación de JAX, https://docs.jax.dev/en/latest/installation.html: con los wheels de CUDA de pip no debe apuntar a otras bibliotecas de CUDA) y después &apos;pip install -U &quot;jax[cuda12]&quot;&apos; de nuevo. Con un CUDA local (&apos;jax[cuda12_local]&apos;), instala {library} del toolkit y pon su carpeta lib en LD_LIBRARY_PATH.</translation>
    </message>
    <message>
        <source>CuPy could not load NVRTC, CUDA&apos;s run-time compiler ({library}), which it needs to compile its kernels: the CUDA {cuda} it was built for is not installed where CuPy looks.</source>
        <translation>CuPy no pudo cargar NVRTC, el compilador en tiempo de ejecución de CUDA ({library}), que necesita para compilar sus kernels: la CUDA {cuda} para la que se compiló no está instalada donde CuPy la busca.</translation>
    </message>
    <message>
        <source>Install CUDA Toolkit {cuda} (developer.nvidia.com/cuda-downloads; on Windows its installer sets CUDA_PATH, which CuPy reads) and open a new terminal; or install CuPy from conda-forge, which brings CUDA&apos;s libraries with it (&apos;conda install -c conda-forge cupy&apos;). The CuPy package must match the toolkit&apos;s major version (cupy-cuda12x for CUDA 12, cupy-cuda11x for CUDA 11).</source>
        <translation>Instala el CUDA Toolkit {cuda} (developer.nvidia.com/cuda-downloads; en Windows, su instalador establece CUDA_PATH, que CuPy lee) y abre una terminal nueva; o instala CuPy desde conda-forge, que trae consigo las bibliotecas de CUDA (&apos;conda install -c conda-forge cupy&apos;). El paquete de CuPy debe corresponder a la versión principal del toolkit (cupy-cuda12x para CUDA 12, cupy-cuda11x para CUDA 11).</translation>
    </message>
    <message>
        <source>NVRTC, CUDA&apos;s run-time compiler, could not load its builtins library (NVRTC_ERROR_BUILTIN_OPERATION_FAILURE): CuPy&apos;s kernels cannot be compiled; the CUDA Toolkit CuPy uses is missing or incomplete.</source>
        <translation>NVRTC, el compilador en tiempo de ejecución de CUDA, no pudo cargar su biblioteca de funciones integradas (NVRTC_ERROR_BUILTIN_OPERATION_FAILURE): los kernels de CuPy no se pueden compilar; el CUDA Toolkit que usa CuPy falta o está incompleto.</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit of the version the CuPy package is built for (cupy-cuda12x: CUDA 12) from developer.nvidia.com/cuda-downloads, so that its nvrtc and nvrtc-builtins libraries are together (on Windows in its bin folder, found through CUDA_PATH), and open a new terminal; or install CuPy from conda-forge (&apos;conda install -c conda-forge cupy&apos;), which brings them.</source>
        <translation>Instala el CUDA Toolkit de la versión para la que está compilado el paquete de CuPy (cupy-cuda12x: CUDA 12) desde developer.nvidia.com/cuda-downloads, de modo que sus bibliotecas nvrtc y nvrtc-builtins estén juntas (en Windows, en su carpeta bin, que se encuentra a través de CUDA_PATH), y abre una terminal nueva; o instala CuPy desde conda-forge (&apos;conda install -c conda-forge cupy&apos;), que las trae.</translation>
    </message>
    <message>
        <source>A framework&apos;s CUDA libraries must come from one installation. Usually a CUDA toolkit or cuDNN on LD_LIBRARY_PATH (PATH on Windows) is found before the nvidia-* wheels the framework installed: unset LD_LIBRARY_PATH, or remove those folders from it, for this environment. Keep PyTorch and TensorFlow (or JAX) in separate environments when they ask for different versions of the same nvidia-* wheels, and let pip install the versions the framework asks for (&apos;pip install --force-reinstall torch&apos; from the index it came from). Where the symbol is newer than the copy that was loaded (the symbol&apos;s version names that library, such as libcublas.so.12), that library&apos;s nvidia-* wheel is older than the rest: upgrade it to their CUDA release (&apos;pip install -U nvidia-cublas-cu12&apos;).</source>
        <translation>Las bibliotecas de CUDA de un framework deben venir de una sola instalación. Normalmente, un CUDA Toolkit o cuDNN en LD_LIBRARY_PATH (PATH en Windows) se encuentra antes que los wheels nvidia-* que instaló el framework: para este entorno, quita la variable LD_LIBRARY_PATH o elimina de ella esas carpetas. Mantén PyTorch y TensorFlow (o JAX) en entornos separados cuando pidan versiones distintas de los mismos wheels nvidia-*, y deja que pip instale las versiones que pide el framework (&apos;pip install --force-reinstall torch&apos; desde el índice del que vino). Cuando el símbolo es más reciente que la copia que se cargó (la versión del símbolo nombra esa biblioteca, como libcublas.so.12), el wheel nvidia-* de esa biblioteca es más antiguo que los demás: actualízalo a la versión de CUDA de los demás (&apos;pip install -U nvidia-cublas-cu12&apos;).</translation>
    </message>
    <message>
        <source>The driver&apos;s CUDA library ({library}) loaded, but it reports no NVIDIA GPU: the driver&apos;s kernel module is not working.</source>
        <translation>La biblioteca CUDA del controlador ({library}) se cargó, pero no informa de ninguna GPU NVIDIA: el módulo del kernel del controlador no funciona.</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos;: if it fails, the kernel module did not load (&apos;lsmod | grep nvidia&apos; shows nothing). Restart if the driver was updated since the last start; on a Secure Boot machine, enroll the module&apos;s key or turn Secure Boot off; otherwise reinstall the driver from your distribution&apos;s packages or NVIDIA&apos;s repository so that the module is built for the running kernel. If &apos;nvidia-smi&apos; works, load the unified-memory module (&apos;sudo modprobe nvidia_uvm&apos;) and, in a container, start it with GPU access (&apos;--gpus all&apos;).</source>
        <translation>Ejecute &apos;nvidia-smi&apos;: si falla, el módulo del kernel no se cargó (&apos;lsmod | grep nvidia&apos; no muestra nada). Reinicie si el controlador se actualizó desde el último arranque; en un equipo con Secure Boot, registre la clave del módulo o desactive Secure Boot; si no, reinstale el controlador desde los paquetes de su distribución o desde el repositorio de NVIDIA para que el módulo se compile para el kernel en ejecución. Si &apos;nvidia-smi&apos; funciona, cargue el módulo de memoria unificada (&apos;sudo modprobe nvidia_uvm&apos;) y, en un contenedor, inícielo con acceso a la GPU (&apos;--gpus all&apos;).</translation>
    </message>
    <message>
        <source>Forward compatibility (the cuda-compat package, /usr/local/cuda/compat) works only on NVIDIA data-center GPUs, not on GeForce or most RTX cards; a container&apos;s start script turns it on when the host&apos;s driver is older than the image&apos;s CUDA. First compare the two: &apos;nvidia-smi&apos; shows the newest CUDA the driver supports; where that is older than the CUDA the image or the framework was built for, update the NVIDIA driver (the lasting fix) or use an image built for the driver&apos;s CUDA. Where the driver is new enough, keep the compat libraries out: remove the cuda-compat package from the host (&apos;sudo apt remove cuda-compat-*&apos;), take /usr/local/cuda/compat out of LD_LIBRARY_PATH, and in a container keep the image&apos;s compat folder out of the library path (for example LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu). Outside containers, the same error follows a driver update without a restart: restart the computer.</source>
        <translation>La compatibilidad hacia adelante (el paquete cuda-compat, /usr/local/cuda/compat) solo funciona en GPU de NVIDIA para centros de datos, no en tarjetas GeForce ni en la mayoría de las RTX; el script de inicio de un contenedor la activa cuando el controlador del host es más antiguo que la versión de CUDA de la imagen. Primero compara ambas: &apos;nvidia-smi&apos; muestra la versión de CUDA más reciente que admite el controlador; si es anterior a la versión de CUDA para la que se compiló la imagen o el framework, actualiza el controlador de NVIDIA (la solución duradera) o usa una imagen creada para la versión de CUDA del controlador. Si el controlador es lo bastante reciente, deja fuera las bibliotecas de compatibilidad: elimina el paquete cuda-compat del host (&apos;sudo apt remove cuda-compat-*&apos;), quita /usr/local/cuda/compat de LD_LIBRARY_PATH y, en un contenedor, deja la carpeta compat de la imagen fuera de la ruta de bibliotecas (por ejemplo, LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu). Fuera de los contenedores, el mismo error aparece tras actualizar el controlador sin reiniciar: reinicia el equipo.</translation>
    </message>
    <message>
        <source>TensorFlow could not start CUDA: cuInit returned {status}, so it uses no GPU and runs on the CPU.</source>
        <translation>TensorFlow no pudo iniciar CUDA: cuInit devolvió {status}, así que no usa ninguna GPU y se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>Check that &apos;nvidia-smi&apos; lists the GPU. At cuInit this error most often follows a driver update or a suspend: restart the computer, or reload the unified-memory module (&apos;sudo modprobe -r nvidia_uvm &amp;&amp; sudo modprobe nvidia_uvm&apos;). Without access to /dev/nvidia-uvm CUDA fails the same way: running a CUDA program once as root creates it, and the user must be allowed to open /dev/nvidia*. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;).</source>
        <translation>Compruebe que &apos;nvidia-smi&apos; muestra la GPU. En cuInit este error suele aparecer tras una actualización del controlador o una suspensión: reinicie el equipo o vuelva a cargar el módulo de memoria unificada (&apos;sudo modprobe -r nvidia_uvm &amp;&amp; sudo modprobe nvidia_uvm&apos;). Sin acceso a /dev/nvidia-uvm, CUDA falla igual: ejecutar una vez un programa CUDA como root lo crea, y el usuario debe poder abrir /dev/nvidia*. En un contenedor, inícielo con acceso a la GPU (&apos;docker run --gpus all ...&apos;).</translation>
    </message>
    <message>
        <source>TensorFlow found no NVIDIA driver: the driver&apos;s library ({driver_library}) did not load, so it uses no GPU and runs on the CPU.</source>
        <translation>TensorFlow no encontró ningún controlador de NVIDIA: la biblioteca del controlador ({driver_library}) no se cargó, así que no usa ninguna GPU y se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver for the GPU from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;) and restart; &apos;nvidia-smi&apos; must then list the GPU. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;, which needs the NVIDIA Container Toolkit on the host); in WSL 2, install the driver on Windows, not inside WSL.</source>
        <translation>Instale el controlador de NVIDIA para la GPU desde https://www.nvidia.com/Download/index.aspx (en Ubuntu: &apos;sudo ubuntu-drivers install&apos;) y reinicie; después &apos;nvidia-smi&apos; debe mostrar la GPU. En un contenedor, inícielo con acceso a la GPU (&apos;docker run --gpus all ...&apos;, que necesita NVIDIA Container Toolkit en el anfitrión); en WSL 2, instale el controlador en Windows, no dentro de WSL.</translation>
    </message>
    <message>
        <source>TensorFlow found no running NVIDIA driver: cuInit returned {status}, and the driver&apos;s kernel module is not loaded (&apos;kernel driver does not appear to be running on this host&apos;), so it uses no GPU and runs on the CPU.</source>
        <translation>TensorFlow no encontró ningún controlador de NVIDIA en marcha: cuInit devolvió {status} y el módulo del núcleo del controlador no está cargado (&apos;kernel driver does not appear to be running on this host&apos;), así que no usa ninguna GPU y se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos;. After a driver or kernel update, restart the computer first; if the module still does not load, build it for the running kernel (install the kernel&apos;s headers, then &apos;sudo dkms autoinstall&apos;) or reinstall the driver, and with Secure Boot on, enrol the module&apos;s key (&apos;sudo dmesg | grep -i nvidia&apos; says why it was refused). In a container, the host&apos;s driver must work and the container must be started with GPU access (&apos;docker run --gpus all ...&apos;); in WSL 2 there is no Linux module: update the driver on Windows.</source>
        <translation>Ejecute &apos;nvidia-smi&apos;. Tras actualizar el controlador o el núcleo, reinicie primero el equipo; si el módulo sigue sin cargarse, compílelo para el núcleo en uso (instale las cabeceras del núcleo y luego &apos;sudo dkms autoinstall&apos;) o reinstale el controlador, y con Secure Boot activado, registre la clave del módulo (&apos;sudo dmesg | grep -i nvidia&apos; dice por qué se rechazó). En un contenedor, el controlador del anfitrión debe funcionar y el contenedor debe iniciarse con acceso a la GPU (&apos;docker run --gpus all ...&apos;); en WSL 2 no hay módulo de Linux: actualice el controlador en Windows.</translation>
    </message>
    <message>
        <source>The NVIDIA driver&apos;s library loaded, but cuInit returned {status}: it sees no GPU, so TensorFlow uses none and runs on the CPU.</source>
        <translation>La biblioteca del controlador de NVIDIA se cargó, pero cuInit devolvió {status}: no ve ninguna GPU, así que TensorFlow no usa ninguna y se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>Check CUDA_VISIBLE_DEVICES first: an empty value or -1 hides every GPU (&apos;echo $CUDA_VISIBLE_DEVICES&apos;; unset it, or set it to a GPU from &apos;nvidia-smi -L&apos;). If &apos;nvidia-smi&apos; lists no GPU, the driver&apos;s kernel module is not working: restart, or reinstall the driver. In a container, start it with GPU access (&apos;docker run --gpus all ...&apos;); on a cluster, ask the job scheduler for a GPU (Slurm: --gpus=1).</source>
        <translation>Compruebe primero CUDA_VISIBLE_DEVICES: un valor vacío o -1 oculta todas las GPU (&apos;echo $CUDA_VISIBLE_DEVICES&apos;; quítela o póngale una GPU de &apos;nvidia-smi -L&apos;). Si &apos;nvidia-smi&apos; no muestra ninguna GPU, el módulo del núcleo del controlador no funciona: reinicie o reinstale el controlador. En un contenedor, inícielo con acceso a la GPU (&apos;docker run --gpus all ...&apos;); en un clúster, pida una GPU al planificador de trabajos (Slurm: --gpus=1).</translation>
    </message>
    <message>
        <source>TensorFlow did not find the CUDA libraries its GPU support needs (&apos;Could not find cuda drivers on your machine, GPU will not be used&apos;), so it runs on the CPU.</source>
        <translation>TensorFlow no encontró las bibliotecas CUDA que necesita su soporte de GPU (&apos;Could not find cuda drivers on your machine, GPU will not be used&apos;), así que se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>On Linux, install TensorFlow with its CUDA libraries, &apos;pip install tensorflow[and-cuda]&apos; (TensorFlow 2.14 and newer), with an NVIDIA driver that &apos;nvidia-smi&apos; shows working, and keep LD_LIBRARY_PATH from pointing at another CUDA. On native Windows, TensorFlow 2.11 and newer have no GPU support: use WSL 2, or TensorFlow 2.10 with CUDA 11.2 and cuDNN 8.1.</source>
        <translation>En Linux, instale TensorFlow con sus bibliotecas CUDA, &apos;pip install tensorflow[and-cuda]&apos; (TensorFlow 2.14 y posteriores), con un controlador de NVIDIA que &apos;nvidia-smi&apos; muestre funcionando, y evite que LD_LIBRARY_PATH apunte a otra CUDA. En Windows nativo, TensorFlow 2.11 y posteriores no admiten GPU: use WSL 2, o TensorFlow 2.10 con CUDA 11.2 y cuDNN 8.1.</translation>
    </message>
    <message>
        <source>A compiled module was built for NumPy 1.x and cannot run with the NumPy 2 installed here.</source>
        <translation>Un módulo compilado se creó para NumPy 1.x y no puede ejecutarse con la versión NumPy 2 instalada aquí.</translation>
    </message>
    <message>
        <source>Either install a NumPy 1 release in this environment (&apos;pip install &quot;numpy&lt;2&quot;&apos;), or upgrade the module that fails to a release built for NumPy 2 (the traceback names it, for example &apos;pip install -U onnxruntime-gpu&apos;). NumPy 2 changed its binary interface: modules compiled against NumPy 1.x must be rebuilt.</source>
        <translation>Instale una versión de NumPy 1 en este entorno (&apos;pip install &quot;numpy&lt;2&quot;&apos;) o actualice el módulo que falla a una versión compilada para NumPy 2 (el traceback indica cuál es; por ejemplo, &apos;pip install -U onnxruntime-gpu&apos;). NumPy 2 cambió su interfaz binaria: los módulos compilados con NumPy 1.x deben volver a compilarse.</translation>
    </message>
    <message>
        <source>FlashAttention 2 runs only on GPUs from Ampere on (compute capability 8.0: RTX 30 series, A100 and newer); this GPU is older.</source>
        <translation>FlashAttention 2 solo funciona en GPU de la generación Ampere o posteriores (capacidad de cómputo 8.0: serie RTX 30, A100 y más recientes); esta GPU es más antigua.</translation>
    </message>
    <message>
        <source>Do not use FlashAttention on this GPU: let the program use PyTorch&apos;s own attention instead (in Hugging Face Transformers, attn_implementation=&quot;sdpa&quot;; in other programs, turn off their flash-attention option or uninstall flash-attn: &apos;pip uninstall flash-attn&apos;). PyTorch&apos;s scaled_dot_product_attention picks the fastest kernel this GPU has.</source>
        <translation>No utilice FlashAttention en esta GPU: deje que el programa utilice en su lugar la implementación de atención propia de PyTorch (en Hugging Face Transformers, attn_implementation=&quot;sdpa&quot;; en otros programas, desactive su opción de flash-attention o desinstale flash-attn: &apos;pip uninstall flash-attn&apos;). scaled_dot_product_attention de PyTorch elige el kernel más rápido disponible para esta GPU.</translation>
    </message>
    <message>
        <source>The NVIDIA open kernel module (nvidia.ko of the &apos;-open&apos; flavour) refused the GPU: it supports only GPUs with a GSP (Turing, GTX 16xx and RTX 20xx, and newer), and this one is older (Maxwell, Pascal or Volta). No NVIDIA module runs, so nvidia-smi and CUDA find no GPU.</source>
        <translation>El módulo de kernel abierto de NVIDIA (nvidia.ko en su variante &apos;-open&apos;) rechazó la GPU: solo admite GPU con GSP (Turing, GTX 16xx y RTX 20xx, y posteriores), y esta es más antigua (Maxwell, Pascal o Volta). No se ejecuta ningún módulo de NVIDIA, por lo que nvidia-smi y CUDA no encuentran ninguna GPU.</translation>
    </message>
    <message>
        <source>Install the proprietary (&apos;closed&apos;) kernel module of the same driver instead, from branch 580, the last that supports these GPUs (590 and newer do not). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (not nvidia-driver-580-open). Fedora with negativo17&apos;s packages: set &apos;kernel&apos; instead of &apos;kernel-open&apos; in /etc/nvidia/kernel.conf and run &apos;sudo akmods --rebuild&apos;. Arch: a proprietary 580xx legacy package instead of nvidia-open. NVIDIA&apos;s installer: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Restart and check with &apos;nvidia-smi&apos;; &apos;sudo dmesg | grep NVRM&apos; must no longer show the GSP message.</source>
        <translation>En su lugar, instale el módulo de kernel propietario (&apos;closed&apos;) del mismo controlador, de la rama 580, la última que admite estas GPU (la 590 y posteriores ya no). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (no nvidia-driver-580-open). Fedora con los paquetes de negativo17: ponga &apos;kernel&apos; en lugar de &apos;kernel-open&apos; en /etc/nvidia/kernel.conf y ejecute &apos;sudo akmods --rebuild&apos;. Arch: un paquete heredado (legacy) propietario 580xx en lugar de nvidia-open. Instalador de NVIDIA: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Reinicie y compruébelo con &apos;nvidia-smi&apos;; &apos;sudo dmesg | grep NVRM&apos; ya no debe mostrar el mensaje sobre GSP.</translation>
    </message>
    <message>
        <source>The NVIDIA open kernel module (nvidia.ko of the &apos;-open&apos; flavour) refused the {gpu}: it supports only GPUs with a GSP (Turing and newer), and this one is older. No NVIDIA module runs, so nvidia-smi and CUDA find no GPU.</source>
        <translation>El módulo de kernel abierto de NVIDIA (nvidia.ko en su variante &apos;-open&apos;) rechazó la {gpu}: solo admite GPU con GSP (Turing y posteriores), y esta es más antigua. No se ejecuta ningún módulo de NVIDIA, por lo que nvidia-smi y CUDA no encuentran ninguna GPU.</translation>
    </message>
    <message>
        <source>Install the proprietary (&apos;closed&apos;) kernel module of the same driver instead, from branch 580, the last that supports GPUs before Turing (590 and newer do not). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (not nvidia-driver-580-open). Fedora with negativo17&apos;s packages: set &apos;kernel&apos; instead of &apos;kernel-open&apos; in /etc/nvidia/kernel.conf and run &apos;sudo akmods --rebuild&apos;. Arch: a proprietary 580xx legacy package instead of nvidia-open. NVIDIA&apos;s installer: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Restart and check with &apos;nvidia-smi&apos;.</source>
        <translation>En su lugar, instale el módulo de kernel propietario (&apos;closed&apos;) del mismo controlador, de la rama 580, la última que admite GPU anteriores a Turing (la 590 y posteriores ya no). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (no nvidia-driver-580-open). Fedora con los paquetes de negativo17: ponga &apos;kernel&apos; en lugar de &apos;kernel-open&apos; en /etc/nvidia/kernel.conf y ejecute &apos;sudo akmods --rebuild&apos;. Arch: un paquete heredado (legacy) propietario 580xx en lugar de nvidia-open. Instalador de NVIDIA: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Reinicie y compruébelo con &apos;nvidia-smi&apos;.</translation>
    </message>
    <message>
        <source>The NVIDIA open kernel module (nvidia.ko of the &apos;-open&apos; flavour) refused the {gpu}, a {architecture} GPU: the open module supports only GPUs with a GSP (Turing and newer). No NVIDIA module runs, so nvidia-smi and CUDA find no GPU.</source>
        <translation>El módulo de kernel abierto de NVIDIA (nvidia.ko en su variante &apos;-open&apos;) rechazó la {gpu}, una GPU de arquitectura {architecture}: el módulo abierto solo admite GPU con GSP (Turing y posteriores). No se ejecuta ningún módulo de NVIDIA, por lo que nvidia-smi y CUDA no encuentran ninguna GPU.</translation>
    </message>
    <message>
        <source>Install the proprietary (&apos;closed&apos;) kernel module of the same driver instead, from branch 580, the last that supports {architecture} GPUs (590 and newer do not). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (not nvidia-driver-580-open). Fedora with negativo17&apos;s packages: set &apos;kernel&apos; instead of &apos;kernel-open&apos; in /etc/nvidia/kernel.conf and run &apos;sudo akmods --rebuild&apos;. Arch: a proprietary 580xx legacy package instead of nvidia-open. NVIDIA&apos;s installer: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Restart and check with &apos;nvidia-smi&apos;.</source>
        <translation>En su lugar, instale el módulo de kernel propietario (&apos;closed&apos;) del mismo controlador, de la rama 580, la última que admite GPU de arquitectura {architecture} (la 590 y posteriores ya no). Ubuntu, Debian, Pop!_OS, Mint: &apos;sudo apt install nvidia-driver-580&apos; (no nvidia-driver-580-open). Fedora con los paquetes de negativo17: ponga &apos;kernel&apos; en lugar de &apos;kernel-open&apos; en /etc/nvidia/kernel.conf y ejecute &apos;sudo akmods --rebuild&apos;. Arch: un paquete heredado (legacy) propietario 580xx en lugar de nvidia-open. Instalador de NVIDIA: &apos;sudo sh NVIDIA-Linux-x86_64-580.*.run -m=kernel&apos;. Reinicie y compruébelo con &apos;nvidia-smi&apos;.</translation>
    </message>
    <message>
        <source>Inside WSL 2, CUDA found no GPU (&apos;{evidence}&apos;): the GPU comes from the Windows driver&apos;s libcuda in /usr/lib/wsl/lib, and most often another libcuda is loaded first (a Linux NVIDIA driver&apos;s, the CUDA toolkit&apos;s stubs, a conda environment&apos;s).</source>
        <translation>Dentro de WSL 2, CUDA no encontró ninguna GPU (&apos;{evidence}&apos;): la GPU la proporciona la libcuda del controlador de Windows, en /usr/lib/wsl/lib, y lo más habitual es que se cargue antes otra libcuda (la de un controlador NVIDIA para Linux, los stubs del CUDA Toolkit o la de un entorno conda).</translation>
    </message>
    <message>
        <source>See which libcuda the loader finds: &apos;ldconfig -p | grep libcuda&apos; and &apos;echo $LD_LIBRARY_PATH&apos;. Only /usr/lib/wsl/lib/libcuda.so.1 can reach the GPU. Put it first: &apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos; (in ~/.bashrc to keep it), and take any &apos;.../stubs&apos; folder out of LD_LIBRARY_PATH. Remove a Linux driver installed inside WSL (&apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos;, then &apos;sudo apt remove --purge&apos; those packages), run &apos;wsl --shutdown&apos; in Windows and open WSL again. &apos;/usr/lib/wsl/lib/nvidia-smi&apos; must list the GPU; if it does not, update the NVIDIA driver on Windows.</source>
        <translation>Compruebe qué libcuda encuentra el cargador: &apos;ldconfig -p | grep libcuda&apos; y &apos;echo $LD_LIBRARY_PATH&apos;. Solo /usr/lib/wsl/lib/libcuda.so.1 puede acceder a la GPU. Póngala en primer lugar: &apos;export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH&apos; (en ~/.bashrc para que sea permanente), y quite de LD_LIBRARY_PATH cualquier carpeta &apos;.../stubs&apos;. Elimine cualquier controlador de Linux instalado dentro de WSL (&apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos; y luego &apos;sudo apt remove --purge&apos; con esos paquetes), ejecute &apos;wsl --shutdown&apos; en Windows y vuelva a abrir WSL. &apos;/usr/lib/wsl/lib/nvidia-smi&apos; debe mostrar la GPU; si no lo hace, actualice el controlador de NVIDIA en Windows.</translation>
    </message>
    <message>
        <source>WSL 2 gives Docker no GPU (&apos;WSL environment detected but no adapters were found&apos;): either this machine has no NVIDIA GPU, or the Windows NVIDIA driver does not expose it to WSL 2. Reinstalling the NVIDIA Container Toolkit does not help.</source>
        <translation>WSL 2 no proporciona ninguna GPU a Docker (&apos;WSL environment detected but no adapters were found&apos;): o bien esta máquina no tiene una GPU NVIDIA, o bien el controlador NVIDIA de Windows no la expone a WSL 2. Reinstalar el NVIDIA Container Toolkit no sirve de nada.</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos; in Windows PowerShell. If it lists no NVIDIA GPU (only Intel or AMD graphics), GPU containers cannot run here: start the container without &apos;--gpus all&apos; (in compose, remove the &apos;deploy: resources: reservations: devices&apos; entry) and use the program&apos;s CPU mode, or use a machine with an NVIDIA GPU. If it lists one: install the current NVIDIA driver for Windows, run &apos;wsl --update&apos; and &apos;wsl --shutdown&apos;, use WSL 2 (not WSL 1; &apos;wsl -l -v&apos;) and, in Docker Desktop, the WSL 2 based engine; data-center GPUs in TCC mode are not available to WSL. Check with &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;.</source>
        <translation>Ejecute &apos;nvidia-smi&apos; en Windows PowerShell. Si no muestra ninguna GPU NVIDIA (solo gráficos Intel o AMD), aquí no se pueden ejecutar contenedores con GPU: inicie el contenedor sin &apos;--gpus all&apos; (en compose, elimine la entrada &apos;deploy: resources: reservations: devices&apos;) y use el modo CPU del programa, o use una máquina con una GPU NVIDIA. Si muestra una: instale el controlador NVIDIA actual para Windows, ejecute &apos;wsl --update&apos; y &apos;wsl --shutdown&apos;, use WSL 2 (no WSL 1; &apos;wsl -l -v&apos;) y, en Docker Desktop, el motor basado en WSL 2; las GPU de centro de datos en modo TCC no están disponibles para WSL. Compruébelo con &apos;docker run --rm --gpus all ubuntu nvidia-smi&apos;.</translation>
    </message>
    <message>
        <source>Docker was asked for an NVIDIA GPU (&apos;{evidence}&apos;), but the log shows this machine has no NVIDIA GPU (other graphics only), so no container can get one. Installing the NVIDIA Container Toolkit does not help.</source>
        <translation>Se solicitó a Docker una GPU NVIDIA (&apos;{evidence}&apos;), pero el registro muestra que esta máquina no tiene ninguna GPU NVIDIA (solo otros gráficos), por lo que ningún contenedor puede obtenerla. Instalar el NVIDIA Container Toolkit no sirve de nada.</translation>
    </message>
    <message>
        <source>Run the container without a GPU: drop &apos;--gpus all&apos; (in compose, remove the &apos;deploy: resources: reservations: devices&apos; entry) and use the program&apos;s CPU mode (often an option such as &apos;--device cpu&apos;); it is slower. For CUDA, use a machine with an NVIDIA GPU and its driver, with Docker Desktop&apos;s WSL 2 engine on Windows or the NVIDIA Container Toolkit on Linux.</source>
        <translation>Ejecute el contenedor sin GPU: quite &apos;--gpus all&apos; (en compose, elimine la entrada &apos;deploy: resources: reservations: devices&apos;) y use el modo CPU del programa (a menudo una opción como &apos;--device cpu&apos;); es más lento. Para CUDA, use una máquina con una GPU NVIDIA y su controlador, con el motor WSL 2 de Docker Desktop en Windows o el NVIDIA Container Toolkit en Linux.</translation>
    </message>
    <message>
        <source>The package needs a CUDA driver, and the solver found none on this machine: the virtual package __cuda is missing (&apos;{evidence}&apos;).</source>
        <translation>El paquete necesita un controlador CUDA y el resolvedor no encontró ninguno en esta máquina: falta el paquete virtual __cuda (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>conda, mamba and pixi set __cuda from the NVIDIA driver (&apos;conda info&apos; or &apos;pixi info&apos; lists it under virtual packages). On a machine without an NVIDIA GPU or driver (a login node, CI, a Docker build) that installs for a GPU machine, tell the solver the CUDA version of the target driver: &apos;CONDA_OVERRIDE_CUDA=12.4 conda install ...&apos; (the same for mamba, micromamba and pixi; https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html). If this machine has an NVIDIA GPU, install or repair its driver until &apos;nvidia-smi&apos; works, then run the install again. To run without a GPU, install the CPU build instead.</source>
        <translation>conda, mamba y pixi establecen __cuda a partir del controlador NVIDIA (&apos;conda info&apos; o &apos;pixi info&apos; lo muestran entre los paquetes virtuales). En una máquina sin GPU o controlador NVIDIA (un nodo de inicio de sesión, CI, una compilación de Docker) que instala para una máquina con GPU, indique al resolvedor la versión de CUDA del controlador de destino: &apos;CONDA_OVERRIDE_CUDA=12.4 conda install ...&apos; (igual para mamba, micromamba y pixi; https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html). Si esta máquina tiene una GPU NVIDIA, instale o repare su controlador hasta que &apos;nvidia-smi&apos; funcione y vuelva a ejecutar la instalación. Para ejecutar sin GPU, instale en su lugar la versión para CPU.</translation>
    </message>
    <message>
        <source>The package needs a driver that supports CUDA {required} or newer; this machine&apos;s NVIDIA driver supports CUDA {found} (__cuda={found}).</source>
        <translation>El paquete necesita un controlador compatible con CUDA {required} o posterior; el controlador NVIDIA de esta máquina es compatible con CUDA {found} (__cuda={found}).</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to one that supports CUDA {required} (&apos;nvidia-smi&apos; shows the CUDA version the driver supports), or ask for a build made for CUDA {found} or older (for example &apos;cuda-version={found}&apos; with conda-forge). CONDA_OVERRIDE_CUDA={required} only makes the solver accept the package; its CUDA programs then fail on this driver. To install for another, newer machine, the override is right.</source>
        <translation>Actualice el controlador NVIDIA a uno compatible con CUDA {required} (&apos;nvidia-smi&apos; muestra la versión de CUDA que admite el controlador), o solicite una versión compilada para CUDA {found} o anterior (por ejemplo, &apos;cuda-version={found}&apos; con conda-forge). CONDA_OVERRIDE_CUDA={required} solo hace que el resolvedor acepte el paquete; después, sus programas CUDA fallan con este controlador. Para instalar para otra máquina más nueva, la sobrescritura es la opción correcta.</translation>
    </message>
    <message>
        <source>The package needs a newer CUDA driver than this machine&apos;s: its NVIDIA driver supports CUDA {found} (__cuda={found}) (&apos;{evidence}&apos;).</source>
        <translation>El paquete necesita un controlador CUDA más reciente que el de esta máquina: su controlador NVIDIA admite CUDA {found} (__cuda={found}) (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver (&apos;nvidia-smi&apos; shows the CUDA version it supports), or ask for a build made for CUDA {found} or older (for example &apos;cuda-version={found}&apos; with conda-forge). CONDA_OVERRIDE_CUDA only makes the solver accept the package; its CUDA programs then fail on this driver. To install for another, newer machine, the override is right (https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html).</source>
        <translation>Actualice el controlador NVIDIA (&apos;nvidia-smi&apos; muestra la versión de CUDA que admite), o solicite una versión compilada para CUDA {found} o anterior (por ejemplo, &apos;cuda-version={found}&apos; con conda-forge). CONDA_OVERRIDE_CUDA solo hace que el resolvedor acepte el paquete; después, sus programas CUDA fallan con este controlador. Para instalar para otra máquina más nueva, la sobrescritura es la opción correcta (https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html).</translation>
    </message>
    <message>
        <source>A CUDA build was asked for on macOS, where there is no CUDA: the solver has no __cuda virtual package here (&apos;{evidence}&apos;).</source>
        <translation>Se solicitó una versión con CUDA en macOS, donde no existe CUDA: aquí el resolvedor no tiene el paquete virtual __cuda (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>Install the package without CUDA (its CPU build; PyTorch on Apple silicon uses the &apos;mps&apos; device instead). For CUDA, install on a Linux or Windows machine with an NVIDIA GPU; to only solve an environment for such a machine, set the target platform and CONDA_OVERRIDE_CUDA (for example &apos;CONDA_OVERRIDE_CUDA=12.4 conda create --platform linux-64 ...&apos;).</source>
        <translation>Instale el paquete sin CUDA (su versión para CPU; PyTorch en Apple silicon usa en su lugar el dispositivo &apos;mps&apos;). Para CUDA, instálelo en una máquina Linux o Windows con una GPU NVIDIA; para solo resolver un entorno para una máquina así, establezca la plataforma de destino y CONDA_OVERRIDE_CUDA (por ejemplo, &apos;CONDA_OVERRIDE_CUDA=12.4 conda create --platform linux-64 ...&apos;).</translation>
    </message>
    <message>
        <source>The C++ runtime that was loaded ({library}) is older than the one {required_by} was built with: it lacks {needed}, which comes with GCC {gcc} or newer.</source>
        <translation>El runtime de C++ que se cargó ({library}) es más antiguo que aquel con el que se compiló {required_by}: le falta {needed}, que viene con GCC {gcc} o posterior.</translation>
    </message>
    <message>
        <source>In a conda environment, its own newer libstdc++ is usually there but not found first: &apos;conda install -c conda-forge libstdcxx-ng&apos; (keeps it current), then &apos;export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH&apos; before starting Python. Outside conda, upgrade the system&apos;s C++ runtime (&apos;sudo apt install --only-upgrade libstdc++6&apos;); where the distribution has none new enough, use a conda environment or a build made for this system. &apos;strings {library} | grep GLIBCXX_3.4.&apos; lists what the loaded one has.</source>
        <translation>En un entorno de conda, su propia libstdc++ más reciente suele estar ahí, pero no se encuentra primero: &apos;conda install -c conda-forge libstdcxx-ng&apos; (la mantiene actualizada) y después &apos;export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH&apos; antes de iniciar Python. Fuera de conda, actualiza el runtime de C++ del sistema (&apos;sudo apt install --only-upgrade libstdc++6&apos;); si la distribución no tiene uno lo bastante reciente, usa un entorno de conda o una compilación hecha para este sistema. &apos;strings {library} | grep GLIBCXX_3.4.&apos; muestra lo que tiene el que está cargado.</translation>
    </message>
    <message>
        <source>The system&apos;s C library (glibc) is older than the package needs (&apos;{evidence}&apos;).</source>
        <translation>La biblioteca C del sistema (glibc) es más antigua de lo que necesita el paquete (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>&apos;ldd --version&apos; shows the system&apos;s glibc. It cannot be upgraded by pip or conda: use an older release of the package built for this glibc, build it from source, run it in a container with a newer distribution, or upgrade the operating system.</source>
        <translation>&apos;ldd --version&apos; muestra la glibc del sistema. No se puede actualizar con pip ni con conda: use una versión anterior del paquete compilada para esta glibc, compílelo desde el código fuente, ejecútelo en un contenedor con una distribución más reciente o actualice el sistema operativo.</translation>
    </message>
    <message>
        <source>The package needs glibc {required} or newer, and this system has glibc {found} (conda&apos;s virtual package __glibc).</source>
        <translation>El paquete necesita glibc {required} o posterior, y este sistema tiene glibc {found} (paquete virtual __glibc de conda).</translation>
    </message>
    <message>
        <source>conda and pixi cannot install a newer glibc: it is the operating system&apos;s C library (&apos;ldd --version&apos;). Pin an older release of the package built for glibc {found}, run the environment in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system. CONDA_OVERRIDE_GLIBC only makes the solver accept the package; it then fails to load.</source>
        <translation>conda y pixi no pueden instalar una glibc más reciente: es la biblioteca C del sistema operativo (&apos;ldd --version&apos;). Fije una versión anterior del paquete compilada para glibc {found}, ejecute el entorno en un contenedor con una distribución más reciente (por ejemplo, &apos;docker run -it ubuntu:24.04&apos;) o actualice el sistema operativo. CONDA_OVERRIDE_GLIBC solo hace que el resolvedor acepte el paquete; después, este no se puede cargar.</translation>
    </message>
    <message>
        <source>The package needs glibc {required} or newer, which this system does not have (conda&apos;s virtual package __glibc).</source>
        <translation>El paquete necesita glibc {required} o posterior, que este sistema no tiene (paquete virtual __glibc de conda).</translation>
    </message>
    <message>
        <source>&apos;ldd --version&apos; shows the system&apos;s glibc; conda and pixi cannot install a newer one. Pin an older release of the package built for this glibc, run the environment in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system.</source>
        <translation>&apos;ldd --version&apos; muestra la glibc del sistema; conda y pixi no pueden instalar una más reciente. Fije una versión anterior del paquete compilada para esta glibc, ejecute el entorno en un contenedor con una distribución más reciente (por ejemplo, &apos;docker run -it ubuntu:24.04&apos;) o actualice el sistema operativo.</translation>
    </message>
    <message>
        <source>pip found no installable wheel because this system&apos;s glibc ({found}) is older than the wheels need: their manylinux tag asks for glibc {required} or newer, so pip skips them (&apos;{evidence}&apos;).</source>
        <translation>pip no encontró ningún wheel instalable porque la glibc de este sistema ({found}) es más antigua de lo que necesitan los wheels: su etiqueta manylinux exige glibc {required} o posterior, así que pip los descarta (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>pip cannot upgrade glibc, the operating system&apos;s C library (&apos;ldd --version&apos;). Install an older release of the package that still has manylinux2014 (glibc 2.17) wheels (&apos;pip index versions PACKAGE&apos; lists the releases; the wheel names on pypi.org show their tags), build it from source, run in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system (CentOS 7 and RHEL 7 have glibc 2.17, RHEL 8 2.28).</source>
        <translation>pip no puede actualizar glibc, la biblioteca C del sistema operativo (&apos;ldd --version&apos;). Instale una versión anterior del paquete que aún tenga wheels manylinux2014 (glibc 2.17) (&apos;pip index versions PACKAGE&apos; muestra las versiones; los nombres de los wheels en pypi.org indican sus etiquetas), compílelo desde el código fuente, ejecútelo en un contenedor con una distribución más reciente (por ejemplo, &apos;docker run -it ubuntu:24.04&apos;) o actualice el sistema operativo (CentOS 7 y RHEL 7 tienen glibc 2.17; RHEL 8, 2.28).</translation>
    </message>
    <message>
        <source>pip found no installable wheel: the system&apos;s glibc is older than the wheels&apos; manylinux tag needs (&apos;{evidence}&apos;).</source>
        <translation>pip no encontró ningún wheel instalable: la glibc del sistema es más antigua de lo que exige la etiqueta manylinux de los wheels (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>pip cannot upgrade glibc (&apos;ldd --version&apos; shows it). Install an older release of the package with manylinux2014 wheels, build it from source, run in a container with a newer distribution, or upgrade the operating system.</source>
        <translation>pip no puede actualizar glibc (&apos;ldd --version&apos; la muestra). Instale una versión anterior del paquete con wheels manylinux2014, compílelo desde el código fuente, ejecútelo en un contenedor con una distribución más reciente o actualice el sistema operativo.</translation>
    </message>
    <message>
        <source>{by} needs glibc {required} or newer, and this system has glibc {found} (&apos;{evidence}&apos;).</source>
        <translation>{by} necesita glibc {required} o posterior, y este sistema tiene glibc {found} (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>The loader refuses a library built for a newer glibc, the operating system&apos;s C library (&apos;ldd --version&apos;), which pip and conda cannot upgrade. Install a release of the package built for glibc {found} (an older one, or one with manylinux2014 wheels), build it from source, run it in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system.</source>
        <translation>El cargador rechaza una biblioteca compilada para una glibc más reciente, la biblioteca C del sistema operativo (&apos;ldd --version&apos;), que pip y conda no pueden actualizar. Instale una versión del paquete compilada para glibc {found} (una anterior, o una con wheels manylinux2014), compílelo desde el código fuente, ejecútelo en un contenedor con una distribución más reciente (por ejemplo &apos;docker run -it ubuntu:24.04&apos;) o actualice el sistema operativo.</translation>
    </message>
    <message>
        <source>{by} needs glibc {required} or newer, which this system does not have (&apos;{evidence}&apos;).</source>
        <translation>{by} necesita glibc {required} o posterior, que este sistema no tiene (&apos;{evidence}&apos;).</translation>
    </message>
    <message>
        <source>&apos;ldd --version&apos; shows the system&apos;s glibc, the operating system&apos;s C library, which pip and conda cannot upgrade. Install a release of the package built for the system&apos;s glibc (an older one, or one with manylinux2014 wheels), build it from source, run it in a container with a newer distribution (for example &apos;docker run -it ubuntu:24.04&apos;), or upgrade the operating system.</source>
        <translation>&apos;ldd --version&apos; muestra la glibc del sistema, la biblioteca C del sistema operativo, que pip y conda no pueden actualizar. Instale una versión del paquete compilada para la glibc del sistema (una anterior, o una con wheels manylinux2014), compílelo desde el código fuente, ejecútelo en un contenedor con una distribución más reciente (por ejemplo &apos;docker run -it ubuntu:24.04&apos;) o actualice el sistema operativo.</translation>
    </message>
    <message>
        <source>A CUDA package ({packages}) was asked for on macOS, where NVIDIA&apos;s CUDA does not exist: no such wheel is made for Macs, so the installer found none.</source>
        <translation>Se solicitó un paquete CUDA ({packages}) en macOS, donde no existe CUDA de NVIDIA: no se publican wheels de este tipo para Mac, por lo que el instalador no encontró ninguno.</translation>
    </message>
    <message>
        <source>Install without the CUDA parts: drop the &apos;+cuXXX&apos; suffix and the nvidia-*-cu* packages from the requirements (for PyTorch, &apos;pip install torch torchvision&apos; installs the Mac build, which uses the &apos;mps&apos; device on Apple silicon). A project that needs CUDA must run on a Linux or Windows machine with an NVIDIA GPU (or a cloud one).</source>
        <translation>Instale sin los componentes CUDA: quite el sufijo &apos;+cuXXX&apos; y los paquetes nvidia-*-cu* de los requisitos (para PyTorch, &apos;pip install torch torchvision&apos; instala la versión para Mac, que usa el dispositivo &apos;mps&apos; en Apple silicon). Un proyecto que necesite CUDA debe ejecutarse en una máquina Linux o Windows con una GPU NVIDIA (o en una máquina en la nube).</translation>
    </message>
    <message>
        <source>nvcc refused the host C++ compiler: this CUDA release does not support the installed compiler version.</source>
        <translation>nvcc rechazó el compilador C++ del host: esta versión de CUDA no admite la versión del compilador instalada.</translation>
    </message>
    <message>
        <source>Build with a host compiler version this CUDA release supports (its release notes list them), or install a newer CUDA Toolkit that supports the installed compiler. The nvcc flag &apos;-allow-unsupported-compiler&apos; only skips the check; the build may still fail.</source>
        <translation>Compile con una versión del compilador del host que esta versión de CUDA admita (sus notas de la versión las enumeran), o instale un CUDA Toolkit más reciente que admita el compilador instalado. La opción de nvcc &apos;-allow-unsupported-compiler&apos; solo omite la comprobación; la compilación puede seguir fallando.</translation>
    </message>
    <message>
        <source>nvcc refused the host compiler: this CUDA release supports gcc up to version {limit}, and a newer gcc is the one in use.</source>
        <translation>nvcc rechazó el compilador del host: esta versión de CUDA admite gcc hasta la versión {limit}, y se está usando un gcc más reciente.</translation>
    </message>
    <message>
        <source>Build with gcc {limit} or older: on Debian or Ubuntu &apos;sudo apt install gcc-{limit} g++-{limit}&apos;, then &apos;export CC=gcc-{limit} CXX=g++-{limit} NVCC_CCBIN=g++-{limit}&apos; and run the build again (CMake projects: -DCMAKE_CUDA_HOST_COMPILER=g++-{limit}). Or install a newer CUDA Toolkit whose nvcc supports your gcc (its release notes list the host compilers). The nvcc flag &apos;-allow-unsupported-compiler&apos; only skips the check; the build may still fail.</source>
        <translation>Compile con gcc {limit} o anterior: en Debian o Ubuntu, &apos;sudo apt install gcc-{limit} g++-{limit}&apos;; después, &apos;export CC=gcc-{limit} CXX=g++-{limit} NVCC_CCBIN=g++-{limit}&apos; y vuelva a ejecutar la compilación (proyectos CMake: -DCMAKE_CUDA_HOST_COMPILER=g++-{limit}). O instale un CUDA Toolkit más reciente cuyo nvcc admita su gcc (sus notas de la versión enumeran los compiladores del host compatibles). La opción de nvcc &apos;-allow-unsupported-compiler&apos; solo omite la comprobación; la compilación puede seguir fallando.</translation>
    </message>
    <message>
        <source>nvcc refused the host compiler: CUDA {cuda} supports gcc up to version {limit}, and a newer gcc is the one in use.</source>
        <translation>nvcc rechazó el compilador del host: CUDA {cuda} admite gcc hasta la versión {limit}, y se está usando un gcc más reciente.</translation>
    </message>
    <message>
        <source>nvcc failed inside the C++ standard library headers of GCC {gcc} (&apos;{header}&apos;): this GCC is newer than the installed CUDA release supports, and nvcc&apos;s front end cannot read its headers.</source>
        <translation>nvcc falló dentro de las cabeceras de la biblioteca estándar de C++ de GCC {gcc} (&apos;{header}&apos;): este GCC es más reciente de lo que admite la versión de CUDA instalada, y el front end de nvcc no puede leer sus cabeceras.</translation>
    </message>
    <message>
        <source>Build with an older GCC that this CUDA release supports (its installation guide lists them), such as GCC {older}: on Debian or Ubuntu &apos;sudo apt install gcc-{older} g++-{older}&apos;, then &apos;export CC=gcc-{older} CXX=g++-{older} NVCC_CCBIN=g++-{older}&apos; and build again (CMake projects: -DCMAKE_CUDA_HOST_COMPILER=g++-{older}; conda: &apos;conda install -c conda-forge gxx={older}&apos;). Or install a newer CUDA Toolkit whose nvcc supports GCC {gcc}.</source>
        <translation>Compila con un GCC más antiguo que admita esta versión de CUDA (su guía de instalación los enumera), como GCC {older}: en Debian o Ubuntu, &apos;sudo apt install gcc-{older} g++-{older}&apos;, luego &apos;export CC=gcc-{older} CXX=g++-{older} NVCC_CCBIN=g++-{older}&apos; y vuelve a compilar (proyectos de CMake: -DCMAKE_CUDA_HOST_COMPILER=g++-{older}; conda: &apos;conda install -c conda-forge gxx={older}&apos;). O instala un CUDA Toolkit más reciente cuyo nvcc admita GCC {gcc}.</translation>
    </message>
    <message>
        <source>nvcc refused the Visual Studio compiler (cl.exe): this CUDA release supports Visual Studio {supported} only.</source>
        <translation>nvcc rechazó el compilador de Visual Studio (cl.exe): esta versión de CUDA solo admite Visual Studio {supported}.</translation>
    </message>
    <message>
        <source>Build with a Visual Studio this CUDA release supports (Visual Studio {supported}): install its Build Tools (Visual Studio 2022: https://aka.ms/vs/17/release/vs_BuildTools.exe, with &apos;Desktop development with C++&apos;) and run the build from its &apos;x64 Native Tools Command Prompt&apos;. Or install a newer CUDA Toolkit (https://developer.nvidia.com/cuda-downloads) that supports your Visual Studio, of the same major version as torch&apos;s CUDA. The nvcc flag &apos;-allow-unsupported-compiler&apos; only skips the check.</source>
        <translation>Compile con un Visual Studio que esta versión de CUDA admita (Visual Studio {supported}): instale sus Build Tools (Visual Studio 2022: https://aka.ms/vs/17/release/vs_BuildTools.exe, con &apos;Desktop development with C++&apos;) y ejecute la compilación desde su &apos;x64 Native Tools Command Prompt&apos;. O instale un CUDA Toolkit más reciente (https://developer.nvidia.com/cuda-downloads) que admita su Visual Studio, con la misma versión principal de CUDA que torch. La opción de nvcc &apos;-allow-unsupported-compiler&apos; solo omite la comprobación.</translation>
    </message>
    <message>
        <source>nvcc refused the Visual Studio compiler (cl.exe): CUDA {cuda} supports Visual Studio {supported} only.</source>
        <translation>nvcc rechazó el compilador de Visual Studio (cl.exe): CUDA {cuda} solo admite Visual Studio {supported}.</translation>
    </message>
    <message>
        <source>A CUDA extension was being built, but no CUDA Toolkit was found: CUDA_HOME is not set and nvcc, the CUDA compiler, is not where the build looked. PyTorch&apos;s wheels bring the CUDA runtime, not the compiler.</source>
        <translation>Se estaba compilando una extensión CUDA, pero no se encontró ningún CUDA Toolkit: CUDA_HOME no está definida y nvcc, el compilador de CUDA, no está donde lo buscó la compilación. Los wheels de PyTorch incluyen el runtime de CUDA, no el compilador.</translation>
    </message>
    <message>
        <source>CMake found no CUDA compiler: nvcc is not installed, or not where CMake looks (PATH, the CUDACXX variable, CMAKE_CUDA_COMPILER).</source>
        <translation>CMake no encontró ningún compilador de CUDA: nvcc no está instalado, o no está donde CMake lo busca (PATH, la variable CUDACXX, CMAKE_CUDA_COMPILER).</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit with its nvcc (Linux: NVIDIA&apos;s cuda-toolkit package from developer.nvidia.com/cuda-downloads, or &apos;sudo apt install nvidia-cuda-toolkit&apos; on Debian and Ubuntu; conda: &apos;conda install -c nvidia cuda-nvcc&apos;; Windows: NVIDIA&apos;s installer, with its Visual Studio integration). Then put it on PATH (&apos;export PATH=/usr/local/cuda/bin:$PATH&apos;) or name it to CMake (&apos;cmake -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc ..&apos;), and delete the build folder&apos;s CMakeCache.txt before configuring again: &apos;nvcc --version&apos; must answer first.</source>
        <translation>Instala el CUDA Toolkit con su nvcc (Linux: el paquete cuda-toolkit de NVIDIA desde developer.nvidia.com/cuda-downloads, o &apos;sudo apt install nvidia-cuda-toolkit&apos; en Debian y Ubuntu; conda: &apos;conda install -c nvidia cuda-nvcc&apos;; Windows: el instalador de NVIDIA, con su integración con Visual Studio). Después añádelo al PATH (&apos;export PATH=/usr/local/cuda/bin:$PATH&apos;) o indícaselo a CMake (&apos;cmake -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc ..&apos;), y borra el CMakeCache.txt de la carpeta de compilación antes de volver a configurar: primero debe responder &apos;nvcc --version&apos;.</translation>
    </message>
    <message>
        <source>A CUDA extension was being built, but no CUDA Toolkit was found: CUDA_HOME is not set and nvcc, the CUDA compiler, is not where the build looked. This torch is built for CUDA {cuda}; its wheels bring the CUDA runtime, not the compiler.</source>
        <translation>Se estaba compilando una extensión CUDA, pero no se encontró ningún CUDA Toolkit: CUDA_HOME no está definida y nvcc, el compilador de CUDA, no está donde lo buscó la compilación. Este torch está compilado para CUDA {cuda}; sus wheels incluyen el runtime de CUDA, no el compilador.</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit of the same major version as torch&apos;s CUDA (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; shows it) from https://developer.nvidia.com/cuda-toolkit-archive; its installer sets CUDA_PATH, which the build reads. Open a new terminal and run the build again. Many packages also publish prebuilt Windows wheels, which need no compiler.</source>
        <translation>Instale el CUDA Toolkit con la misma versión principal de CUDA que usa torch (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; la muestra) desde https://developer.nvidia.com/cuda-toolkit-archive; su instalador define CUDA_PATH, que es la variable que lee la compilación. Abra una terminal nueva y vuelva a ejecutar la compilación. Muchos paquetes también publican wheels precompilados para Windows, que no necesitan compilador.</translation>
    </message>
    <message>
        <source>Install CUDA Toolkit {cuda} from https://developer.nvidia.com/cuda-toolkit-archive; its installer sets CUDA_PATH, which the build reads. Open a new terminal and run the build again (or set it by hand: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{cuda}). Many packages also publish prebuilt Windows wheels, which need no compiler.</source>
        <translation>Instale CUDA Toolkit {cuda} desde https://developer.nvidia.com/cuda-toolkit-archive; su instalador define CUDA_PATH, que es la variable que lee la compilación. Abra una terminal nueva y vuelva a ejecutar la compilación (o defínala manualmente: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{cuda}). Muchos paquetes también publican wheels precompilados para Windows, que no necesitan compilador.</translation>
    </message>
    <message>
        <source>The CUDA Toolkit the build found (CUDA {detected}) is of another major version than the CUDA this torch was built with ({torch_cuda}), so torch refuses to compile the extension.</source>
        <translation>El CUDA Toolkit que encontró la compilación (CUDA {detected}) tiene una versión principal distinta de la versión de CUDA con la que se compiló este torch ({torch_cuda}), por lo que torch se niega a compilar la extensión.</translation>
    </message>
    <message>
        <source>Make them match: install CUDA Toolkit {torch_cuda} and point the build at it (&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;; Windows: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}), or install a torch built for CUDA {detected}.</source>
        <translation>Haga que coincidan: instale CUDA Toolkit {torch_cuda} y haga que la compilación lo use (&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;; Windows: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}), o instale un torch compilado para CUDA {detected}.</translation>
    </message>
    <message>
        <source>Make them match: install CUDA Toolkit {torch_cuda} and point the build at it (&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;; Windows: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}), or install a torch built for CUDA {detected}: &apos;pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;.</source>
        <translation>Haga que coincidan: instale CUDA Toolkit {torch_cuda} y haga que la compilación lo use (&apos;export CUDA_HOME=/usr/local/cuda-{torch_cuda}&apos;; Windows: set CUDA_HOME=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{torch_cuda}), o instale un torch compilado para CUDA {detected}: &apos;pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;.</translation>
    </message>
    <message>
        <source>ptxas, the CUDA assembler, does not know this GPU&apos;s architecture ({sm}, compute capability {capability}): it comes from a CUDA release older than the GPU.</source>
        <translation>ptxas, el ensamblador de CUDA, no conoce la arquitectura de esta GPU ({sm}, capacidad de cómputo {capability}): procede de una versión de CUDA anterior a la GPU.</translation>
    </message>
    <message>
        <source>Build with a newer CUDA Toolkit whose ptxas knows {sm}, or leave the architecture out of the build.</source>
        <translation>Compile con un CUDA Toolkit más reciente cuyo ptxas conozca {sm}, o excluya esa arquitectura de la compilación.</translation>
    </message>
    <message>
        <source>The ptxas that Triton uses does not know this GPU&apos;s architecture ({sm}, compute capability {capability}): it comes from a CUDA release older than the GPU.</source>
        <translation>El ptxas que usa Triton no conoce la arquitectura de esta GPU ({sm}, capacidad de cómputo {capability}): procede de una versión de CUDA anterior a la GPU.</translation>
    </message>
    <message>
        <source>Point Triton at the ptxas of the newest CUDA Toolkit installed: &apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos; (Windows: set TRITON_PTXAS_PATH to the toolkit&apos;s bin\ptxas.exe), or upgrade torch and Triton to their newest release for this GPU (pytorch.org/get-started/locally).</source>
        <translation>Indique a Triton que use el ptxas del CUDA Toolkit más reciente instalado: &apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos; (Windows: establezca TRITON_PTXAS_PATH en el bin\ptxas.exe del toolkit), o actualice torch y Triton a su versión más reciente para esta GPU (pytorch.org/get-started/locally).</translation>
    </message>
    <message>
        <source>CUDA {first_cuda} is the first release whose ptxas knows {sm}. Upgrade torch (it brings the matching Triton) to a build for CUDA {first_cuda} or newer: &apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;. Or point Triton at the ptxas of an installed CUDA Toolkit {first_cuda} or newer: &apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos;.</source>
        <translation>CUDA {first_cuda} es la primera versión cuyo ptxas conoce {sm}. Actualice torch (incluye el Triton correspondiente) a una versión para CUDA {first_cuda} o posterior: &apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/{index}&apos;. O indique a Triton que use el ptxas de un CUDA Toolkit {first_cuda} o posterior instalado: &apos;export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas&apos;.</translation>
    </message>
    <message>
        <source>Build with the newest CUDA Toolkit (point CUDA_HOME and PATH at it), or leave {sm} out of the architectures built (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES).</source>
        <translation>Compile con el CUDA Toolkit más reciente (haga que CUDA_HOME y PATH apunten a él), o excluya {sm} de las arquitecturas que se compilan (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES).</translation>
    </message>
    <message>
        <source>CUDA {first_cuda} is the first release whose ptxas knows {sm}: install CUDA Toolkit {first_cuda} or newer and build with it (&apos;export CUDA_HOME=/usr/local/cuda-{first_cuda}&apos; and its bin folder first on PATH), or leave {sm} out of the architectures built (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES).</source>
        <translation>CUDA {first_cuda} es la primera versión cuyo ptxas conoce {sm}: instale CUDA Toolkit {first_cuda} o posterior y compile con él (&apos;export CUDA_HOME=/usr/local/cuda-{first_cuda}&apos; y su carpeta bin al principio de PATH), o excluya {sm} de las arquitecturas que se compilan (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES).</translation>
    </message>
    <message>
        <source>The Triton installed does not support this GPU&apos;s compute capability: it is older than the GPU.</source>
        <translation>El Triton instalado no admite la capacidad de cómputo de esta GPU: es anterior a la GPU.</translation>
    </message>
    <message>
        <source>Upgrade torch and Triton together to their newest release (Triton 3.3, which came with torch 2.7, is the first to support Blackwell GPUs such as the RTX 50 series): &apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu128&apos;. On Windows, install the triton-windows release made for that torch.</source>
        <translation>Actualiza torch y Triton juntos a su versión más reciente (Triton 3.3, que llegó con torch 2.7, es la primera que admite GPU Blackwell como la RTX serie 50): &apos;pip install -U torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu128&apos;. En Windows, instala la versión de triton-windows hecha para ese torch.</translation>
    </message>
    <message>
        <source>The linker could not find the NVIDIA driver&apos;s libcuda (&apos;{flag}&apos;): Triton (torch.compile, vLLM) links a small launcher against it at run time.</source>
        <translation>El enlazador no encontró la libcuda del controlador de NVIDIA (&apos;{flag}&apos;): Triton (torch.compile, vLLM) enlaza con ella un pequeño lanzador en tiempo de ejecución.</translation>
    </message>
    <message>
        <source>Find the driver&apos;s library: &apos;ldconfig -p | grep libcuda&apos; (or &apos;find / -name &quot;libcuda.so*&quot; 2&gt;/dev/null&apos;), and tell Triton its folder: &apos;export TRITON_LIBCUDA_PATH=&lt;that folder&gt;&apos; (or add the folder to LIBRARY_PATH). Where only libcuda.so.1 is there, link it: &apos;sudo ln -s libcuda.so.1 &lt;that folder&gt;/libcuda.so&apos;. In WSL 2 the folder is /usr/lib/wsl/lib; on Kubernetes GPU nodes (GKE) /usr/local/nvidia/lib64. A CUDA Toolkit&apos;s lib64/stubs holds a libcuda.so to link with, but the driver&apos;s own is the one that runs.</source>
        <translation>Busca la biblioteca del controlador: &apos;ldconfig -p | grep libcuda&apos; (o &apos;find / -name &quot;libcuda.so*&quot; 2&gt;/dev/null&apos;), e indica a Triton su carpeta: &apos;export TRITON_LIBCUDA_PATH=&lt;that folder&gt;&apos; (o añade la carpeta a LIBRARY_PATH). Si solo está libcuda.so.1, crea un enlace: &apos;sudo ln -s libcuda.so.1 &lt;that folder&gt;/libcuda.so&apos;. En WSL 2 la carpeta es /usr/lib/wsl/lib; en los nodos GPU de Kubernetes (GKE), /usr/local/nvidia/lib64. La carpeta lib64/stubs de un CUDA Toolkit contiene una libcuda.so para enlazar, pero la que se ejecuta es la del propio controlador.</translation>
    </message>
    <message>
        <source>The linker could not find the NVIDIA driver&apos;s libcuda (&apos;{flag}&apos;): Triton (torch.compile, vLLM) links a small launcher against it at run time, and in WSL 2 it is in /usr/lib/wsl/lib.</source>
        <translation>El enlazador no encontró la libcuda del controlador de NVIDIA (&apos;{flag}&apos;): Triton (torch.compile, vLLM) enlaza con ella un pequeño lanzador en tiempo de ejecución, y en WSL 2 está en /usr/lib/wsl/lib.</translation>
    </message>
    <message>
        <source>Tell Triton where WSL 2 keeps the driver&apos;s libraries: &apos;export TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib&apos; (or &apos;export LIBRARY_PATH=/usr/lib/wsl/lib:$LIBRARY_PATH&apos;), and run again; &apos;ldconfig -p | grep libcuda&apos; should list that folder (if not, &apos;sudo ldconfig&apos;). Do not install a Linux NVIDIA driver inside WSL 2: Windows&apos; driver provides libcuda.</source>
        <translation>Indica a Triton dónde guarda WSL 2 las bibliotecas del controlador: &apos;export TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib&apos; (o &apos;export LIBRARY_PATH=/usr/lib/wsl/lib:$LIBRARY_PATH&apos;) y vuelve a ejecutar; &apos;ldconfig -p | grep libcuda&apos; debería mostrar esa carpeta (si no, &apos;sudo ldconfig&apos;). No instales un controlador NVIDIA de Linux dentro de WSL 2: el controlador de Windows proporciona libcuda.</translation>
    </message>
    <message>
        <source>Triton found no C compiler: it compiles a small launcher for its GPU kernels on first use, and neither CC nor a compiler on PATH was found.</source>
        <translation>Triton no encontró ningún compilador de C: la primera vez que se usa compila un pequeño lanzador para sus kernels de GPU, y no se encontró ni CC ni ningún compilador en PATH.</translation>
    </message>
    <message>
        <source>Install a C compiler: &apos;sudo apt install build-essential&apos; (Debian, Ubuntu; in a slim container image too), &apos;sudo dnf install gcc&apos; (Fedora, RHEL); or name one with &apos;export CC=/usr/bin/gcc&apos;. Then run the program again.</source>
        <translation>Instale un compilador de C: &apos;sudo apt install build-essential&apos; (Debian, Ubuntu; también en una imagen de contenedor slim), &apos;sudo dnf install gcc&apos; (Fedora, RHEL); o indique uno con &apos;export CC=/usr/bin/gcc&apos;. Después, vuelva a ejecutar el programa.</translation>
    </message>
    <message>
        <source>The NVIDIA driver could not load the program&apos;s GPU code (error 222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION): its PTX was compiled by a newer CUDA than this driver supports.</source>
        <translation>El controlador NVIDIA no pudo cargar el código de GPU del programa (error 222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION): su PTX se compiló con una versión de CUDA más reciente que la que admite este controlador.</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to one at least as new as the CUDA the program, its wheel or its container was built with (&apos;gpuwizard detect&apos; shows the installed driver). Or install a build of the program (wheel, container image) made with an older CUDA.</source>
        <translation>Actualice el controlador NVIDIA a uno al menos tan reciente como la versión de CUDA con la que se compiló el programa, su wheel o su contenedor (&apos;gpuwizard detect&apos; muestra el controlador instalado). O instale una versión del programa (wheel, imagen de contenedor) compilada con una versión de CUDA anterior.</translation>
    </message>
    <message>
        <source>The NVIDIA driver could not load the program&apos;s GPU code (error 222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION): its PTX was compiled by CUDA {cuda}, newer than this driver supports.</source>
        <translation>El controlador NVIDIA no pudo cargar el código de GPU del programa (error 222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION): su PTX se compiló con CUDA {cuda}, más reciente de lo que admite este controlador.</translation>
    </message>
    <message>
        <source>PTX from CUDA {cuda} needs NVIDIA driver {min_driver} or newer (the driver CUDA {cuda} ships with). Update the driver (&apos;gpuwizard detect&apos; shows the installed one). Or install a build of the program (wheel, container image) made with an older CUDA.</source>
        <translation>El PTX de CUDA {cuda} necesita el controlador NVIDIA {min_driver} o posterior (el controlador que se distribuye con CUDA {cuda}). Actualice el controlador (&apos;gpuwizard detect&apos; muestra el instalado). O instale una versión del programa (wheel, imagen de contenedor) compilada con una versión de CUDA anterior.</translation>
    </message>
    <message>
        <source>The driver here is {driver}; PTX from CUDA {cuda} needs NVIDIA driver {min_driver} or newer (the driver CUDA {cuda} ships with). Update the driver (&apos;gpuwizard detect&apos; shows the installed one). Or install a build of the program (wheel, container image) made with an older CUDA.</source>
        <translation>El controlador de este equipo es el {driver}; el PTX de CUDA {cuda} necesita el controlador NVIDIA {min_driver} o posterior (el controlador que se distribuye con CUDA {cuda}). Actualice el controlador (&apos;gpuwizard detect&apos; muestra el instalado). O instale una versión del programa (wheel, imagen de contenedor) compilada con una versión de CUDA anterior.</translation>
    </message>
    <message>
        <source>llama.cpp (ggml) ran out of GPU memory while allocating its buffers: the model&apos;s layers, its context (KV cache) and its compute buffers do not fit.</source>
        <translation>llama.cpp (ggml) se quedó sin memoria de GPU al asignar sus búferes: las capas del modelo, su contexto (caché KV) y sus búferes de cómputo no caben.</translation>
    </message>
    <message>
        <source>Put fewer layers on the GPU: lower -ngl (--n-gpu-layers), for example -ngl 20, and raise it step by step; use a smaller context (-c 4096) or a quantised KV cache (--cache-type-k q8_0 --cache-type-v q8_0); or take a smaller quantisation of the model (a Q4_K_M file instead of Q8_0). Close other programs that use the GPU (&apos;nvidia-smi&apos; lists them).</source>
        <translation>Ponga menos capas en la GPU: reduzca -ngl (--n-gpu-layers), por ejemplo a -ngl 20, y súbalo poco a poco; use un contexto más pequeño (-c 4096) o una caché KV cuantizada (--cache-type-k q8_0 --cache-type-v q8_0); o use una cuantización más pequeña del modelo (un archivo Q4_K_M en lugar de Q8_0). Cierre otros programas que usen la GPU (&apos;nvidia-smi&apos; los muestra).</translation>
    </message>
    <message>
        <source>llama.cpp (ggml) could not allocate {size} on GPU {device}: the model&apos;s layers, its context (KV cache) and its compute buffers do not fit.</source>
        <translation>llama.cpp (ggml) no pudo asignar {size} en la GPU {device}: las capas del modelo, su contexto (caché KV) y sus búferes de cómputo no caben.</translation>
    </message>
    <message>
        <source>Put fewer layers on the GPU: lower -ngl (--n-gpu-layers), for example -ngl 20, and raise it step by step; use a smaller context (-c 4096) or a quantised KV cache (--cache-type-k q8_0 --cache-type-v q8_0); or take a smaller quantisation of the model (a Q4_K_M file instead of Q8_0). Close other programs that use the GPU (&apos;nvidia-smi&apos; lists them). With several GPUs, move layers away from GPU {device} with --tensor-split (for example --tensor-split 3,1).</source>
        <translation>Ponga menos capas en la GPU: reduzca -ngl (--n-gpu-layers), por ejemplo a -ngl 20, y súbalo poco a poco; use un contexto más pequeño (-c 4096) o una caché KV cuantizada (--cache-type-k q8_0 --cache-type-v q8_0); o use una cuantización más pequeña del modelo (un archivo Q4_K_M en lugar de Q8_0). Cierre otros programas que usen la GPU (&apos;nvidia-smi&apos; los muestra). Con varias GPU, traslade capas fuera de la GPU {device} con --tensor-split (por ejemplo, --tensor-split 3,1).</translation>
    </message>
    <message>
        <source>Ollama&apos;s runner (llama.cpp) ran out of GPU memory while loading the model: its layers, context and compute buffers do not fit.</source>
        <translation>El runner de Ollama (llama.cpp) se quedó sin memoria de GPU al cargar el modelo: sus capas, su contexto y sus búferes de cómputo no caben.</translation>
    </message>
    <message>
        <source>Let Ollama put fewer layers on the GPU: in &apos;ollama run&apos; type &apos;/set parameter num_gpu 20&apos; (or set num_gpu in the Modelfile or the API&apos;s options) and raise it step by step; use a smaller context (/set parameter num_ctx 4096, or OLLAMA_CONTEXT_LENGTH=4096 for the server) or a smaller quantisation of the model (a q4_K_M tag). Close other programs that use the GPU (&apos;nvidia-smi&apos; lists them).</source>
        <translation>Haga que Ollama ponga menos capas en la GPU: en &apos;ollama run&apos; escriba &apos;/set parameter num_gpu 20&apos; (o establezca num_gpu en el Modelfile o en las opciones de la API) y súbalo poco a poco; use un contexto más pequeño (/set parameter num_ctx 4096, u OLLAMA_CONTEXT_LENGTH=4096 para el servidor) o una cuantización más pequeña del modelo (una etiqueta q4_K_M). Cierre otros programas que usen la GPU (&apos;nvidia-smi&apos; los muestra).</translation>
    </message>
    <message>
        <source>Ollama&apos;s runner (llama.cpp) could not allocate {size} on GPU {device} while loading the model: its layers, context and compute buffers do not fit.</source>
        <translation>El runner de Ollama (llama.cpp) no pudo asignar {size} en la GPU {device} al cargar el modelo: sus capas, su contexto y sus búferes de cómputo no caben.</translation>
    </message>
    <message>
        <source>vLLM refused to load the model in bfloat16: the {gpu} GPU has compute capability {capability}, and bfloat16 needs 8.0 (Ampere) or newer.</source>
        <translation>vLLM se negó a cargar el modelo en bfloat16: la GPU {gpu} tiene capacidad de cómputo {capability}, y bfloat16 requiere 8.0 (Ampere) o superior.</translation>
    </message>
    <message>
        <source>Start vLLM in half precision: &apos;vllm serve MODEL --dtype half&apos; (in Python: LLM(model=..., dtype=&quot;half&quot;)); programs built on vLLM usually pass this on as their own dtype option (float16). Models trained in bfloat16 normally run in float16.</source>
        <translation>Inicie vLLM en media precisión: &apos;vllm serve MODEL --dtype half&apos; (en Python: LLM(model=..., dtype=&quot;half&quot;)); los programas basados en vLLM suelen transmitir esto mediante su propia opción de dtype (float16). Los modelos entrenados en bfloat16 normalmente funcionan en float16.</translation>
    </message>
    <message>
        <source>&apos;--dtype half&apos; gets past this check, but vLLM needs compute capability 7.0 or newer for any precision, so it cannot run on this GPU. Use a program that still supports it: llama.cpp or Ollama with a GGUF model, or Hugging Face transformers with torch_dtype=torch.float16.</source>
        <translation>&apos;--dtype half&apos; supera esta comprobación, pero vLLM necesita capacidad de cómputo 7.0 o superior con cualquier precisión, así que no puede ejecutarse en esta GPU. Use un programa que aún la admita: llama.cpp u Ollama con un modelo GGUF, o Hugging Face transformers con torch_dtype=torch.float16.</translation>
    </message>
    <message>
        <source>vLLM&apos;s KV cache is too small for one request of the model&apos;s maximum sequence length.</source>
        <translation>La caché KV de vLLM es demasiado pequeña para una sola solicitud con la longitud de secuencia máxima del modelo.</translation>
    </message>
    <message>
        <source>Start vLLM with a shorter maximum length (--max-model-len, for example 8192; in Python: LLM(..., max_model_len=8192)), or give vLLM more of the GPU: raise --gpu-memory-utilization (default 0.9; for example 0.95) if nothing else runs on it, spread the model over more GPUs (--tensor-parallel-size 2), or use a quantised model or an fp8 KV cache (--kv-cache-dtype fp8).</source>
        <translation>Inicie vLLM con una longitud máxima más corta (--max-model-len, por ejemplo 8192; en Python: LLM(..., max_model_len=8192)), o dé a vLLM una parte mayor de la GPU: aumente --gpu-memory-utilization (0.9 por defecto; por ejemplo, 0.95) si no se ejecuta nada más en ella, reparta el modelo entre más GPU (--tensor-parallel-size 2) o use un modelo cuantizado o una caché KV fp8 (--kv-cache-dtype fp8).</translation>
    </message>
    <message>
        <source>vLLM&apos;s KV cache holds {kv_tokens} tokens, fewer than the model&apos;s maximum sequence length ({max_len}): one full-length request would not fit.</source>
        <translation>La caché KV de vLLM admite {kv_tokens} tokens, menos que la longitud de secuencia máxima del modelo ({max_len}): no cabría una solicitud de longitud completa.</translation>
    </message>
    <message>
        <source>Start vLLM with a shorter maximum length: &apos;--max-model-len {kv_tokens}&apos; or less (in Python: LLM(..., max_model_len={kv_tokens})), or give vLLM more of the GPU: raise --gpu-memory-utilization (default 0.9; for example 0.95) if nothing else runs on it, spread the model over more GPUs (--tensor-parallel-size 2), or use a quantised model or an fp8 KV cache (--kv-cache-dtype fp8).</source>
        <translation>Inicie vLLM con una longitud máxima más corta: &apos;--max-model-len {kv_tokens}&apos; o menos (en Python: LLM(..., max_model_len={kv_tokens})), o dé a vLLM una parte mayor de la GPU: aumente --gpu-memory-utilization (0.9 por defecto; por ejemplo, 0.95) si no se ejecuta nada más en ella, reparta el modelo entre más GPU (--tensor-parallel-size 2) o use un modelo cuantizado o una caché KV fp8 (--kv-cache-dtype fp8).</translation>
    </message>
    <message>
        <source>vLLM needs {needed} GiB of KV cache for one request of the model&apos;s maximum length ({max_len} tokens), but only {available} GiB is left for it; vLLM estimates that {estimate} tokens fit.</source>
        <translation>vLLM necesita {needed} GiB de caché KV para una solicitud con la longitud máxima del modelo ({max_len} tokens), pero solo le quedan {available} GiB disponibles; vLLM estima que caben {estimate} tokens.</translation>
    </message>
    <message>
        <source>Start vLLM with a shorter maximum length: &apos;--max-model-len {estimate}&apos; or less (in Python: LLM(..., max_model_len={estimate})), or give vLLM more of the GPU: raise --gpu-memory-utilization (default 0.9; for example 0.95) if nothing else runs on it, spread the model over more GPUs (--tensor-parallel-size 2), or use a quantised model or an fp8 KV cache (--kv-cache-dtype fp8).</source>
        <translation>Inicie vLLM con una longitud máxima más corta: &apos;--max-model-len {estimate}&apos; o menos (en Python: LLM(..., max_model_len={estimate})), o dé a vLLM una parte mayor de la GPU: aumente --gpu-memory-utilization (0.9 por defecto; por ejemplo, 0.95) si no se ejecuta nada más en ella, reparta el modelo entre más GPU (--tensor-parallel-size 2) o use un modelo cuantizado o una caché KV fp8 (--kv-cache-dtype fp8).</translation>
    </message>
    <message>
        <source>vLLM needs {needed} GiB of KV cache for one request of the model&apos;s maximum length ({max_len} tokens), but only {available} GiB is left for it.</source>
        <translation>vLLM necesita {needed} GiB de caché KV para una solicitud con la longitud máxima del modelo ({max_len} tokens), pero solo le quedan {available} GiB disponibles.</translation>
    </message>
    <message>
        <source>vLLM found no GPU memory left for its KV cache after loading the model: the weights and the test run fill what --gpu-memory-utilization allows.</source>
        <translation>vLLM no encontró memoria de GPU libre para su caché KV después de cargar el modelo: los pesos y la ejecución de prueba ocupan todo lo que permite --gpu-memory-utilization.</translation>
    </message>
    <message>
        <source>Raise --gpu-memory-utilization (the share of the GPU vLLM may use; default 0.9, for example 0.95), do not lower it; close other programs that use the GPU (&apos;nvidia-smi&apos; lists them; two vLLM servers on one GPU each need their own share). If it still fails, use a smaller or quantised model, more GPUs (--tensor-parallel-size 2), or a shorter --max-model-len.</source>
        <translation>Aumente --gpu-memory-utilization (la fracción de la GPU que puede usar vLLM; 0.9 por defecto, por ejemplo 0.95); no lo reduzca. Cierre otros programas que usen la GPU (&apos;nvidia-smi&apos; los muestra; dos servidores vLLM en una misma GPU necesitan cada uno su propia fracción). Si sigue fallando, use un modelo más pequeño o cuantizado, más GPU (--tensor-parallel-size 2) o un --max-model-len más corto.</translation>
    </message>
    <message>
        <source>NCCL could not use direct peer-to-peer (P2P) access between two GPUs ({warning}). The GPUs, their PCIe topology or the virtual machine do not support it.</source>
        <translation>NCCL no pudo usar el acceso directo entre pares (P2P) entre dos GPU ({warning}). Las GPU, su topología PCIe o la máquina virtual no lo admiten.</translation>
    </message>
    <message>
        <source>Make NCCL use shared memory instead: set NCCL_P2P_DISABLE=1 in the environment of every process that uses the GPUs (export it before torchrun or accelerate launch; in Ray, in runtime_env&apos;s env_vars, since Ray&apos;s workers do not inherit the shell; in Docker, with -e NCCL_P2P_DISABLE=1). vLLM also does its own P2P: add --disable-custom-all-reduce. Most GeForce cards (RTX 3090 without NVLink, RTX 4090, RTX 5090) have no P2P over PCIe; on data-centre GPUs, check that IOMMU/ACS is off in the BIOS and that the VM passes the GPUs through together.</source>
        <translation>Haga que NCCL use memoria compartida en su lugar: establezca NCCL_P2P_DISABLE=1 en el entorno de cada proceso que use las GPU (expórtela antes de torchrun o accelerate launch; en Ray, en los env_vars de runtime_env, ya que los workers de Ray no heredan el entorno del shell; en Docker, con -e NCCL_P2P_DISABLE=1). vLLM también usa su propio P2P: añada --disable-custom-all-reduce. La mayoría de las tarjetas GeForce (RTX 3090 sin NVLink, RTX 4090, RTX 5090) no admiten P2P a través de PCIe; en GPU de centro de datos, compruebe que IOMMU/ACS esté desactivado en la BIOS y que la máquina virtual reciba todas las GPU juntas mediante passthrough.</translation>
    </message>
    <message>
        <source>NCCL {version} asks for more shared memory per block ({needed} bytes) than this GPU provides ({available} bytes), so its kernels cannot start: this NCCL release does not support the GPU.</source>
        <translation>NCCL {version} pide más memoria compartida por bloque ({needed} bytes) de la que proporciona esta GPU ({available} bytes), así que sus kernels no pueden iniciarse: esta versión de NCCL no es compatible con la GPU.</translation>
    </message>
    <message>
        <source>Upgrade NCCL to 2.26 or newer. With PyTorch, upgrade the NCCL wheel it loads (&apos;pip install -U nvidia-nccl-cu12&apos;, or nvidia-nccl-cu13 for a CUDA 13 build) or PyTorch itself; a system NCCL (nccl-tests, your own builds): install NCCL 2.26 or newer from NVIDIA&apos;s repository.</source>
        <translation>Actualiza NCCL a la 2.26 o posterior. Con PyTorch, actualiza el wheel de NCCL que carga (&apos;pip install -U nvidia-nccl-cu12&apos;, o nvidia-nccl-cu13 para una compilación con CUDA 13) o el propio PyTorch; con un NCCL del sistema (nccl-tests, tus propias compilaciones): instala NCCL 2.26 o posterior desde el repositorio de NVIDIA.</translation>
    </message>
    <message>
        <source>vLLM found no GPU platform to run on: its device type is empty, because neither NVIDIA&apos;s management library nor torch found a usable GPU in this process.</source>
        <translation>vLLM no encontró ninguna plataforma GPU en la que ejecutarse: su tipo de dispositivo está vacío, porque ni la biblioteca de administración de NVIDIA ni torch encontraron una GPU utilizable en este proceso.</translation>
    </message>
    <message>
        <source>Check in the same environment: &apos;nvidia-smi&apos; and &apos;python -c &quot;import torch; print(torch.cuda.is_available(), torch.version.cuda)&quot;&apos;. In a container, give it the GPU (&apos;docker run --gpus all&apos;, with the NVIDIA Container Toolkit) and put the driver&apos;s libraries on the library path (on GKE nodes: &apos;export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:$LD_LIBRARY_PATH&apos;). A torch without CUDA (a +cpu build) needs the CUDA build vLLM asks for. On a machine without an NVIDIA GPU, install vLLM&apos;s build for that hardware (docs.vllm.ai, &apos;Installation&apos;).</source>
        <translation>Comprueba en el mismo entorno: &apos;nvidia-smi&apos; y &apos;python -c &quot;import torch; print(torch.cuda.is_available(), torch.version.cuda)&quot;&apos;. En un contenedor, dale acceso a la GPU (&apos;docker run --gpus all&apos;, con NVIDIA Container Toolkit) y pon las bibliotecas del controlador en la ruta de bibliotecas (en nodos de GKE: &apos;export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:$LD_LIBRARY_PATH&apos;). Un torch sin CUDA (una compilación +cpu) necesita sustituirse por la compilación con CUDA que pide vLLM. En una máquina sin GPU NVIDIA, instala la compilación de vLLM para ese hardware (docs.vllm.ai, &apos;Installation&apos;).</translation>
    </message>
    <message>
        <source>NCCL, the library that moves data between GPUs, failed: {reason}.</source>
        <translation>Falló NCCL, la biblioteca que transfiere datos entre GPU: {reason}.</translation>
    </message>
    <message>
        <source>Run again with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,P2P,NET for start-up errors): NCCL&apos;s WARN lines name the call that failed. Frequent causes: GPUs without peer-to-peer access (set NCCL_P2P_DISABLE=1), too little shared memory in a container (docker run --ipc=host, or --shm-size=16g), the wrong network interface between machines (NCCL_SOCKET_IFNAME=eth0), and an NCCL or a framework built for a newer CUDA than the driver supports (&apos;gpuwizard detect&apos; shows the driver).</source>
        <translation>Vuelva a ejecutar con NCCL_DEBUG=INFO (y NCCL_DEBUG_SUBSYS=INIT,P2P,NET para errores de arranque): las líneas WARN de NCCL indican la llamada que falló. Causas frecuentes: GPU sin acceso entre pares (establezca NCCL_P2P_DISABLE=1), poca memoria compartida en un contenedor (docker run --ipc=host, o --shm-size=16g), una interfaz de red incorrecta entre máquinas (NCCL_SOCKET_IFNAME=eth0), y un NCCL o un framework compilado para una versión de CUDA más reciente que la que admite el controlador (&apos;gpuwizard detect&apos; muestra el controlador).</translation>
    </message>
    <message>
        <source>NCCL could not create its shared-memory segment in /dev/shm ({warning}): the GPUs of one machine exchange data through it, and a container&apos;s /dev/shm is 64 MB unless it is given more.</source>
        <translation>NCCL no pudo crear su segmento de memoria compartida en /dev/shm ({warning}): las GPU de una misma máquina intercambian datos a través de él, y el /dev/shm de un contenedor es de 64 MB a menos que se le asigne más.</translation>
    </message>
    <message>
        <source>Give the container more shared memory: add &apos;--shm-size=16g&apos; (or &apos;--ipc=host&apos;) to its &apos;docker run&apos; command (Docker Compose: shm_size: &apos;16gb&apos;; Kubernetes: an emptyDir volume with medium: Memory mounted at /dev/shm). Outside containers, check free space with &apos;df -h /dev/shm&apos;.</source>
        <translation>Dale más memoria compartida al contenedor: añade &apos;--shm-size=16g&apos; (o &apos;--ipc=host&apos;) a su comando &apos;docker run&apos; (Docker Compose: shm_size: &apos;16gb&apos;; Kubernetes: un volumen emptyDir con medium: Memory montado en /dev/shm). Fuera de los contenedores, comprueba el espacio libre con &apos;df -h /dev/shm&apos;.</translation>
    </message>
    <message>
        <source>NCCL, the library that moves data between GPUs, failed. Its warning: {warning}</source>
        <translation>Falló NCCL, la biblioteca que transfiere datos entre GPU. Su advertencia: {warning}</translation>
    </message>
    <message>
        <source>This PyTorch has no {backend} for torch.distributed: PyTorch&apos;s builds for Windows and macOS, and its CPU-only builds, come without NCCL.</source>
        <translation>Este PyTorch no tiene {backend} para torch.distributed: las versiones de PyTorch para Windows y macOS, así como las versiones solo para CPU, no incluyen NCCL.</translation>
    </message>
    <message>
        <source>On Windows or macOS, use the gloo backend (torch.distributed.init_process_group(backend=&quot;gloo&quot;); in a program&apos;s options, a &apos;gloo&apos; or &apos;ddp_backend&apos; setting), or run the program in Linux (WSL 2 on Windows). With a single GPU, start the program without torchrun / distributed mode. On Linux, install a CUDA build of PyTorch (for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;; check with python -c &quot;import torch.distributed as d; print(d.is_nccl_available())&quot;).</source>
        <translation>En Windows o macOS, use el backend gloo (torch.distributed.init_process_group(backend=&quot;gloo&quot;); en las opciones de un programa, un ajuste &apos;gloo&apos; o &apos;ddp_backend&apos;), o ejecute el programa en Linux (WSL 2 en Windows). Con una sola GPU, inicie el programa sin torchrun ni modo distribuido. En Linux, instale una versión de PyTorch con CUDA (por ejemplo, &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;; compruébelo con python -c &quot;import torch.distributed as d; print(d.is_nccl_available())&quot;).</translation>
    </message>
    <message>
        <source>PyTorch on Windows has no {backend} for torch.distributed: the program asked for it (NCCL is Linux-only).</source>
        <translation>PyTorch en Windows no tiene {backend} para torch.distributed, y el programa lo solicitó (NCCL solo existe en Linux).</translation>
    </message>
    <message>
        <source>Use the gloo backend instead (torch.distributed.init_process_group(backend=&quot;gloo&quot;); in a program&apos;s options, a &apos;gloo&apos; or &apos;ddp_backend&apos; setting). With a single GPU, start the program without torchrun / distributed mode. For fast multi-GPU training, run it in WSL 2, where PyTorch&apos;s Linux builds bring NCCL.</source>
        <translation>Use en su lugar el backend gloo (torch.distributed.init_process_group(backend=&quot;gloo&quot;); en las opciones de un programa, un ajuste &apos;gloo&apos; o &apos;ddp_backend&apos;). Con una sola GPU, inicie el programa sin torchrun ni modo distribuido. Para un entrenamiento rápido con varias GPU, ejecútelo en WSL 2, donde las versiones de PyTorch para Linux incluyen NCCL.</translation>
    </message>
    <message>
        <source>torch.distributed could not start its rendezvous store: PyTorch 2.4 and newer use libuv for it by default, and PyTorch&apos;s Windows builds have no libuv.</source>
        <translation>torch.distributed no pudo iniciar su almacén de rendezvous: PyTorch 2.4 y posteriores usan libuv para ello de forma predeterminada, y las versiones de PyTorch para Windows no incluyen libuv.</translation>
    </message>
    <message>
        <source>This TensorFlow has no compiled kernels for the GPU&apos;s compute capability {capability}: the driver compiles them from PTX when TensorFlow starts, which can take 30 minutes or longer.</source>
        <translation>Este TensorFlow no tiene kernels compilados para la capacidad de cómputo {capability} de la GPU: el controlador los compila a partir de PTX cuando se inicia TensorFlow, lo que puede tardar 30 minutos o más.</translation>
    </message>
    <message>
        <source>Let the first start finish; to keep the compiled kernels for later starts, enlarge the driver&apos;s cache (CUDA_CACHE_MAXSIZE=4294967296). To avoid it, use a TensorFlow release built for this GPU generation (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; on Linux or WSL 2; NVIDIA&apos;s TensorFlow containers are built for their current GPUs).</source>
        <translation>Deje que termine el primer inicio; para conservar los kernels compilados en inicios posteriores, amplíe la caché del controlador (CUDA_CACHE_MAXSIZE=4294967296). Para evitarlo, use una versión de TensorFlow compilada para esta generación de GPU (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; en Linux o WSL 2; los contenedores de TensorFlow de NVIDIA están compilados para sus GPU actuales).</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s GPU kernels could not be loaded: the driver could not compile the PTX TensorFlow ships for this GPU (CUDA_ERROR_INVALID_PTX), so this TensorFlow has no kernels that run on it; the GPU is newer than the TensorFlow build.</source>
        <translation>No se pudieron cargar los kernels de GPU de TensorFlow: el controlador no pudo compilar para esta GPU el PTX que incluye TensorFlow (CUDA_ERROR_INVALID_PTX), así que este TensorFlow no tiene kernels que se ejecuten en ella; la GPU es más reciente que la compilación de TensorFlow.</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver and TensorFlow to the newest release (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; on Linux or WSL 2), and check the GPU with &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos;. If the error stays, this TensorFlow cannot run on this GPU: use NVIDIA&apos;s TensorFlow container (built for its current GPUs), build TensorFlow from source for the GPU&apos;s compute capability (TF_CUDA_COMPUTE_CAPABILITIES), or use PyTorch, whose CUDA 12.8 and newer builds support RTX 50 GPUs.</source>
        <translation>Actualiza el controlador de NVIDIA y TensorFlow a la versión más reciente (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; en Linux o WSL 2) y comprueba la GPU con &apos;nvidia-smi --query-gpu=name,compute_cap --format=csv&apos;. Si el error persiste, este TensorFlow no puede ejecutarse en esta GPU: usa el contenedor de TensorFlow de NVIDIA (compilado para sus GPU actuales), compila TensorFlow desde el código fuente para la capacidad de cómputo de la GPU (TF_CUDA_COMPUTE_CAPABILITIES) o usa PyTorch, cuyas compilaciones con CUDA 12.8 y posteriores admiten las GPU RTX 50.</translation>
    </message>
    <message>
        <source>This TensorFlow has no compiled kernels for the GPU&apos;s compute capability {capability} (Blackwell, RTX 50): the driver must compile them from older PTX at start, which takes long and often fails (CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_PTX and &apos;no kernel image&apos; errors after it).</source>
        <translation>Este TensorFlow no tiene kernels compilados para la capacidad de cómputo {capability} de la GPU (Blackwell, RTX 50): el controlador debe compilarlos al inicio a partir de PTX más antiguo, lo que tarda mucho y a menudo falla (y después aparecen errores CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_PTX y &apos;no kernel image&apos;).</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver (its PTX compiler must know the PTX TensorFlow ships) and TensorFlow to the newest release (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; on Linux or WSL 2), and enlarge the driver&apos;s cache so that a successful compilation is kept (CUDA_CACHE_MAXSIZE=4294967296). If errors follow, this TensorFlow cannot run on this GPU: build TensorFlow from source for compute capability {capability} (TF_CUDA_COMPUTE_CAPABILITIES), or use PyTorch, whose CUDA 12.8 and newer builds support RTX 50 GPUs.</source>
        <translation>Actualice el controlador NVIDIA (su compilador de PTX debe conocer el PTX que incluye TensorFlow) y TensorFlow a la versión más reciente (&apos;pip install -U &quot;tensorflow[and-cuda]&quot;&apos; en Linux o WSL 2), y amplíe la caché del controlador para que se conserve una compilación correcta (CUDA_CACHE_MAXSIZE=4294967296). Si siguen apareciendo errores, este TensorFlow no puede ejecutarse en esta GPU: compile TensorFlow desde el código fuente para la capacidad de cómputo {capability} (TF_CUDA_COMPUTE_CAPABILITIES), o use PyTorch, cuyas versiones para CUDA 12.8 y posteriores admiten las GPU RTX 50.</translation>
    </message>
    <message>
        <source>TensorFlow {tf_version} on native Windows sees no GPU: TensorFlow 2.11 and newer have no GPU support on native Windows (2.10 was the last release with it), whatever CUDA and cuDNN are installed.</source>
        <translation>TensorFlow {tf_version} en Windows nativo no ve ninguna GPU: TensorFlow 2.11 y posteriores no admiten GPU en Windows nativo (2.10 fue la última versión que lo hacía), independientemente de las versiones de CUDA y cuDNN instaladas.</translation>
    </message>
    <message>
        <source>Use TensorFlow in WSL 2: install Ubuntu (&apos;wsl --install&apos;), then inside it &apos;pip install &quot;tensorflow[and-cuda]&quot;&apos; (the Windows NVIDIA driver serves WSL 2; install no Linux driver). Or stay on native Windows with TensorFlow 2.10, the last with GPU support: Python 3.10 or older, &apos;pip install &quot;tensorflow&lt;2.11&quot;&apos;, with CUDA 11.2 and cuDNN 8.1 (for example &apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;).</source>
        <translation>Use TensorFlow en WSL 2: instale Ubuntu (&apos;wsl --install&apos;) y, dentro de él, ejecute &apos;pip install &quot;tensorflow[and-cuda]&quot;&apos; (el controlador NVIDIA de Windows da servicio a WSL 2; no instale ningún controlador de Linux). O quédese en Windows nativo con TensorFlow 2.10, la última versión con soporte para GPU: Python 3.10 o anterior, &apos;pip install &quot;tensorflow&lt;2.11&quot;&apos;, con CUDA 11.2 y cuDNN 8.1 (por ejemplo, &apos;conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0&apos;).</translation>
    </message>
    <message>
        <source>Ollama refused to load the model: it estimates that the model needs {needed} of system memory, and only {available} is available.</source>
        <translation>Ollama se negó a cargar el modelo: calcula que el modelo necesita {needed} de memoria del sistema y solo hay {available} disponibles.</translation>
    </message>
    <message>
        <source>Free memory (close other programs; in a virtual machine, a container or WSL 2, give it more memory or swap), or use a smaller model or quantisation (a q4_K_M tag) and a smaller context (OLLAMA_CONTEXT_LENGTH=4096 for the server, or num_ctx). If the estimate is far above the size of the model&apos;s file, update Ollama: its estimates for new model families are corrected in later releases.</source>
        <translation>Libera memoria (cierra otros programas; en una máquina virtual, un contenedor o WSL 2, dale más memoria o swap), o usa un modelo o una cuantización más pequeños (una etiqueta q4_K_M) y un contexto menor (OLLAMA_CONTEXT_LENGTH=4096 para el servidor, o num_ctx). Si el cálculo es muy superior al tamaño del archivo del modelo, actualiza Ollama: sus cálculos para las nuevas familias de modelos se corrigen en versiones posteriores.</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver is loaded but could not initialise the GPU: the kernel log says &apos;RmInitAdapter failed&apos;. Until it does, nvidia-smi says &apos;No devices were found&apos; and CUDA finds no GPU.</source>
        <translation>El controlador del kernel de NVIDIA está cargado, pero no pudo inicializar la GPU: el registro del kernel indica &apos;RmInitAdapter failed&apos;. Mientras no lo consiga, nvidia-smi indica &apos;No devices were found&apos; y CUDA no encuentra ninguna GPU.</translation>
    </message>
    <message>
        <source>Read the NVRM lines before that one, and any Xid, with &apos;sudo dmesg | grep -iE &quot;NVRM|Xid&quot;&apos;: they name the step that failed. Check the GPU&apos;s power cables and seating, and that &apos;Above 4G Decoding&apos; is enabled in the firmware (BIOS/UEFI) settings. Check that the kernel module is the driver&apos;s own: &apos;cat /proc/driver/nvidia/version&apos; and &apos;modinfo nvidia | grep ^version&apos; must name the same version as the driver you installed; if not, reinstall the driver and restart.</source>
        <translation>Lee las líneas NVRM anteriores a esa, y cualquier Xid, con &apos;sudo dmesg | grep -iE &quot;NVRM|Xid&quot;&apos;: indican el paso que falló. Revisa los cables de alimentación de la GPU y que esté bien insertada, y que &apos;Above 4G Decoding&apos; esté habilitado en la configuración del firmware (BIOS/UEFI). Comprueba que el módulo del kernel sea el del propio controlador: &apos;cat /proc/driver/nvidia/version&apos; y &apos;modinfo nvidia | grep ^version&apos; deben indicar la misma versión que el controlador que instalaste; si no, reinstala el controlador y reinicia.</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver could not initialise the GPU: its BAR1 window ({bar1_mib} MiB) is too small to map the GPU&apos;s memory ({fb_mib} MiB), which this driver required. Resizable BAR is off, or Above 4G Decoding, which it needs, is off in the machine&apos;s firmware.</source>
        <translation>El controlador del kernel de NVIDIA no pudo inicializar la GPU: su ventana BAR1 ({bar1_mib} MiB) es demasiado pequeña para mapear la memoria de la GPU ({fb_mib} MiB), algo que este controlador requería. Resizable BAR está desactivado, o bien Above 4G Decoding, que este necesita, está desactivado en el firmware de la máquina.</translation>
    </message>
    <message>
        <source>Enable &apos;Above 4G Decoding&apos; and &apos;Resizable BAR&apos; (&apos;Re-Size BAR Support&apos;) in the machine&apos;s firmware (BIOS/UEFI) settings and restart; &apos;sudo lspci -vv -d 10de: | grep -i &quot;Region 1&quot;&apos; should then show a region at least as large as the GPU&apos;s memory. Where the firmware has neither setting: on a Turing GPU (RTX 20xx) with the open kernel module, the report&apos;s GPU worked with the proprietary kernel module of the same driver, and with driver 570.153.02 or older (NVIDIA/open-gpu-kernel-modules#934).</source>
        <translation>Habilita &apos;Above 4G Decoding&apos; y &apos;Resizable BAR&apos; (&apos;Re-Size BAR Support&apos;) en la configuración del firmware (BIOS/UEFI) de la máquina y reinicia; después, &apos;sudo lspci -vv -d 10de: | grep -i &quot;Region 1&quot;&apos; debería mostrar una región al menos tan grande como la memoria de la GPU. Si el firmware no tiene ninguno de los dos ajustes: en una GPU Turing (RTX 20xx) con el módulo de kernel abierto, la GPU del informe funcionó con el módulo de kernel propietario del mismo controlador, y con el controlador 570.153.02 o anterior (NVIDIA/open-gpu-kernel-modules#934).</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver could not start the GPU&apos;s firmware (GSP, the GPU System Processor), so the GPU stays uninitialised: nvidia-smi says &apos;No devices were found&apos; and CUDA finds no GPU.</source>
        <translation>El controlador del kernel de NVIDIA no pudo iniciar el firmware de la GPU (GSP, el GPU System Processor), así que la GPU sigue sin inicializar: nvidia-smi indica &apos;No devices were found&apos; y CUDA no encuentra ninguna GPU.</translation>
    </message>
    <message>
        <source>Power the machine off fully and start it again: lines such as &apos;WPR2 already up&apos; or &apos;GFW boot&apos; mean the GPU kept a bad state. Check that the firmware files match the kernel module: &apos;cat /proc/driver/nvidia/version&apos; and &apos;ls /lib/firmware/nvidia/&apos; must name the same driver version; if not, reinstall the driver. If it still fails, install another driver branch. On a GPU before Blackwell, the proprietary kernel module (not the open one) can run without the GSP firmware: add &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; to /etc/modprobe.d/nvidia-gsp.conf, run &apos;sudo update-initramfs -u&apos; (Debian, Ubuntu) or &apos;sudo dracut -f&apos; (Fedora), and restart.</source>
        <translation>Apaga la máquina por completo y vuelve a encenderla: líneas como &apos;WPR2 already up&apos; o &apos;GFW boot&apos; indican que la GPU conservó un estado erróneo. Comprueba que los archivos de firmware coincidan con el módulo del kernel: &apos;cat /proc/driver/nvidia/version&apos; y &apos;ls /lib/firmware/nvidia/&apos; deben indicar la misma versión del controlador; si no, reinstala el controlador. Si sigue fallando, instala otra rama del controlador. En una GPU anterior a Blackwell, el módulo de kernel propietario (no el abierto) puede funcionar sin el firmware GSP: añade &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; a /etc/modprobe.d/nvidia-gsp.conf, ejecuta &apos;sudo update-initramfs -u&apos; (Debian, Ubuntu) o &apos;sudo dracut -f&apos; (Fedora) y reinicia.</translation>
    </message>
    <message>
        <source>The NVIDIA kernel driver reported {xids}. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>El controlador del kernel de NVIDIA informó de {xids}. Documentación de NVIDIA sobre Xid: {meanings}.</translation>
    </message>
    <message>
        <source>An Xid that names a program (pid=, name=) usually comes from that program&apos;s error: run it again and read its own error message (for CUDA programs, &apos;CUDA_LAUNCH_BLOCKING=1&apos; names the failing call). If the GPU stays unusable (&apos;nvidia-smi&apos; fails or hangs), reset it with &apos;sudo nvidia-smi -r&apos; while nothing uses it, or restart the machine. If the Xid recurs without a program&apos;s fault, check the GPU&apos;s power, cooling and seating. NVIDIA&apos;s list: https://docs.nvidia.com/deploy/xid-errors/</source>
        <translation>Un Xid que nombra un programa (pid=, name=) suele deberse a un error de ese programa: vuelve a ejecutarlo y lee su propio mensaje de error (en programas CUDA, &apos;CUDA_LAUNCH_BLOCKING=1&apos; indica la llamada que falla). Si la GPU sigue inutilizable (&apos;nvidia-smi&apos; falla o se bloquea), restablécela con &apos;sudo nvidia-smi -r&apos; mientras nada la use, o reinicia la máquina. Si el Xid se repite sin que falle ningún programa, revisa la alimentación, la refrigeración y la inserción de la GPU. Lista de NVIDIA: https://docs.nvidia.com/deploy/xid-errors/</translation>
    </message>
    <message>
        <source>The GPU fell off the bus ({xids}): it stopped answering on PCIe, so every program using it failed. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>La GPU se cayó del bus ({xids}): dejó de responder en PCIe, así que fallaron todos los programas que la usaban. Documentación de NVIDIA sobre Xid: {meanings}.</translation>
    </message>
    <message>
        <source>Restart the machine: a GPU that fell off the bus does not come back without one. Then check what NVIDIA names as causes: the GPU&apos;s power (a power supply large enough, every PCIe power cable plugged in, no splitters), its seating and any riser cable, and its temperature and power under load (&apos;nvidia-smi -q -d TEMPERATURE,POWER&apos;). If it recurs, try another PCIe slot; a GPU that keeps falling off may be failing.</source>
        <translation>Reinicia la máquina: una GPU que se cayó del bus no vuelve sin reiniciar. Después revisa lo que NVIDIA indica como causas: la alimentación de la GPU (una fuente de alimentación con potencia suficiente, todos los cables de alimentación PCIe conectados, sin divisores), su inserción y cualquier cable riser, y su temperatura y consumo bajo carga (&apos;nvidia-smi -q -d TEMPERATURE,POWER&apos;). Si se repite, prueba otra ranura PCIe; una GPU que sigue cayéndose puede estar averiándose.</translation>
    </message>
    <message>
        <source>The GPU reported a memory (ECC) error: {xids}. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>La GPU informó de un error de memoria (ECC): {xids}. Documentación de NVIDIA sobre Xid: {meanings}.</translation>
    </message>
    <message>
        <source>Reset the GPU so that pending row remaps (or page retirements) take effect: &apos;sudo nvidia-smi -r&apos; while nothing uses it, or restart the machine. Then check its memory with &apos;nvidia-smi -q -d ECC,ROW_REMAPPER&apos; (GPUs before Ampere: &apos;nvidia-smi -q -d ECC,PAGE_RETIREMENT&apos;): &apos;Remapping Failure Occurred: Yes&apos;, or uncorrectable errors that keep growing, mean failing GPU memory; contact the GPU&apos;s seller or NVIDIA support.</source>
        <translation>Restablece la GPU para que se apliquen las reasignaciones de filas pendientes (o las retiradas de páginas): &apos;sudo nvidia-smi -r&apos; mientras nada la use, o reinicia la máquina. Después comprueba su memoria con &apos;nvidia-smi -q -d ECC,ROW_REMAPPER&apos; (GPU anteriores a Ampere: &apos;nvidia-smi -q -d ECC,PAGE_RETIREMENT&apos;): &apos;Remapping Failure Occurred: Yes&apos;, o errores no corregibles que siguen aumentando, indican que la memoria de la GPU está fallando; contacta con el vendedor de la GPU o con el soporte de NVIDIA.</translation>
    </message>
    <message>
        <source>The GPU&apos;s firmware (GSP, the GPU System Processor) failed: {xids}. NVIDIA&apos;s Xid documentation: {meanings}.</source>
        <translation>El firmware de la GPU (GSP, el GPU System Processor) falló: {xids}. Documentación de NVIDIA sobre Xid: {meanings}.</translation>
    </message>
    <message>
        <source>Restart the machine: the GPU usually needs a reset. If it recurs, update to the newest driver of its branch, or try another branch. On a GPU before Blackwell, the proprietary kernel module (not the open one) can run without the GSP firmware: add &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; to /etc/modprobe.d/nvidia-gsp.conf, run &apos;sudo update-initramfs -u&apos; (Debian, Ubuntu) or &apos;sudo dracut -f&apos; (Fedora), and restart; &apos;nvidia-smi -q | grep -i &quot;GSP Firmware&quot;&apos; then shows N/A.</source>
        <translation>Reinicia la máquina: normalmente la GPU necesita un restablecimiento. Si se repite, actualiza al controlador más reciente de su rama o prueba otra rama. En una GPU anterior a Blackwell, el módulo de kernel propietario (no el abierto) puede funcionar sin el firmware GSP: añade &apos;options nvidia NVreg_EnableGpuFirmware=0&apos; a /etc/modprobe.d/nvidia-gsp.conf, ejecuta &apos;sudo update-initramfs -u&apos; (Debian, Ubuntu) o &apos;sudo dracut -f&apos; (Fedora) y reinicia; después, &apos;nvidia-smi -q | grep -i &quot;GSP Firmware&quot;&apos; muestra N/A.</translation>
    </message>
    <message>
        <source>The installed NVIDIA driver ({driver}) no longer supports the {gpu}: NVIDIA supports it only in its {legacy} legacy driver branch, so the driver ignores the GPU, and nvidia-smi and CUDA find none.</source>
        <translation>El controlador de NVIDIA instalado ({driver}) ya no admite la {gpu}: NVIDIA solo la admite en su rama de controladores heredados {legacy}, así que el controlador ignora la GPU, y nvidia-smi y CUDA no encuentran ninguna.</translation>
    </message>
    <message>
        <source>Install the {legacy} driver for this system from https://www.nvidia.com/object/unix.html (or the distribution&apos;s package of that branch), with its proprietary kernel module, not an &apos;-open&apos; one (the open modules need a Turing or newer GPU), and keep updates from moving past that branch. Then restart; &apos;nvidia-smi&apos; must list the GPU.</source>
        <translation>Instala el controlador {legacy} para este sistema desde https://www.nvidia.com/object/unix.html (o el paquete de esa rama de la distribución), con su módulo de kernel propietario, no uno &apos;-open&apos; (los módulos abiertos necesitan una GPU Turing o más reciente), y evita que las actualizaciones pasen de esa rama. Después reinicia; &apos;nvidia-smi&apos; debe mostrar la GPU.</translation>
    </message>
    <message>
        <source>Install the {branch} branch of the driver with its proprietary kernel module, not an &apos;-open&apos; one (the open modules need a Turing or newer GPU), and keep updates from moving past it: Ubuntu: &apos;sudo apt install nvidia-driver-{branch}&apos;, then &apos;sudo apt-mark hold nvidia-driver-{branch}&apos;; Arch: the nvidia-{branch}xx-dkms package; NixOS: hardware.nvidia.package = config.boot.kernelPackages.nvidiaPackages.legacy_{branch}; elsewhere NVIDIA&apos;s {legacy} driver from https://www.nvidia.com/object/unix.html. Then restart; &apos;nvidia-smi&apos; must list the GPU.</source>
        <translation>Instala la rama {branch} del controlador con su módulo de kernel propietario, no uno &apos;-open&apos; (los módulos abiertos necesitan una GPU Turing o más reciente), y evita que las actualizaciones pasen de ella: Ubuntu: &apos;sudo apt install nvidia-driver-{branch}&apos; y después &apos;sudo apt-mark hold nvidia-driver-{branch}&apos;; Arch: el paquete nvidia-{branch}xx-dkms; NixOS: hardware.nvidia.package = config.boot.kernelPackages.nvidiaPackages.legacy_{branch}; en otros sistemas, el controlador {legacy} de NVIDIA desde https://www.nvidia.com/object/unix.html. Después reinicia; &apos;nvidia-smi&apos; debe mostrar la GPU.</translation>
    </message>
    <message>
        <source>The program has no GPU code for this AMD GPU: its build does not include the GPU&apos;s architecture (gfx target).</source>
        <translation>El programa no tiene código de GPU para esta GPU AMD: su compilación no incluye la arquitectura de la GPU (destino gfx).</translation>
    </message>
    <message>
        <source>ROCm programs carry compiled code for a list of gfx targets; on a GPU outside that list they fail with &apos;invalid device function&apos; or &apos;no kernel image is available&apos;. Find the GPU&apos;s target (&apos;rocminfo&apos; lists it as &apos;Name: gfx...&apos;), then install a build that includes it: for PyTorch, the ROCm wheels of a release whose ROCm supports the GPU (AMD&apos;s compatibility matrix lists them); for an extension or a program built from source, rebuild it for that target (PYTORCH_ROCM_ARCH, or --offload-arch=gfx...). On Linux, for a GPU of the same family as a supported target, HSA_OVERRIDE_GFX_VERSION makes ROCm load that target&apos;s code instead (Ollama&apos;s GPU guide documents HSA_OVERRIDE_GFX_VERSION=10.3.0 for a gfx1034 GPU); AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results.</source>
        <translation>Los programas ROCm incluyen código compilado para una lista de destinos gfx; en una GPU que no esté en esa lista fallan con &apos;invalid device function&apos; o &apos;no kernel image is available&apos;. Averigua el destino de la GPU (&apos;rocminfo&apos; lo muestra como &apos;Name: gfx...&apos;) e instala una compilación que lo incluya: para PyTorch, los wheels ROCm de una versión cuyo ROCm admita la GPU (la matriz de compatibilidad de AMD las enumera); para una extensión o un programa compilado desde el código fuente, vuelve a compilarlo para ese destino (PYTORCH_ROCM_ARCH, o --offload-arch=gfx...). En Linux, para una GPU de la misma familia que un destino compatible, HSA_OVERRIDE_GFX_VERSION hace que ROCm cargue en su lugar el código de ese destino (la guía de GPU de Ollama documenta HSA_OVERRIDE_GFX_VERSION=10.3.0 para una GPU gfx1034); AMD no lo admite, no tiene efecto en Windows, y un valor erróneo hace que el programa se bloquee o calcule resultados incorrectos.</translation>
    </message>
    <message>
        <source>The program has no GPU code for this AMD GPU ({gfx}): its build does not include that architecture.</source>
        <translation>El programa no tiene código de GPU para esta GPU AMD ({gfx}): su compilación no incluye esa arquitectura.</translation>
    </message>
    <message>
        <source>ROCm programs carry compiled code for a list of gfx targets, and {gfx} is not in this one&apos;s. Install a build that includes {gfx}: for PyTorch, the ROCm wheels of a release whose ROCm supports the GPU (AMD&apos;s compatibility matrix lists them); for an extension or a program built from source, rebuild it with --offload-arch={gfx} (PYTORCH_ROCM_ARCH={gfx} for PyTorch extensions). On Linux, for a GPU of the same family as a supported target, HSA_OVERRIDE_GFX_VERSION makes ROCm load that target&apos;s code instead (Ollama&apos;s GPU guide documents HSA_OVERRIDE_GFX_VERSION=10.3.0 for a gfx1034 GPU); AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results.</source>
        <translation>Los programas ROCm incluyen código compilado para una lista de destinos gfx, y {gfx} no está en la de este. Instala una compilación que incluya {gfx}: para PyTorch, los wheels ROCm de una versión cuyo ROCm admita la GPU (la matriz de compatibilidad de AMD las enumera); para una extensión o un programa compilado desde el código fuente, vuelve a compilarlo con --offload-arch={gfx} (PYTORCH_ROCM_ARCH={gfx} para las extensiones de PyTorch). En Linux, para una GPU de la misma familia que un destino compatible, HSA_OVERRIDE_GFX_VERSION hace que ROCm cargue en su lugar el código de ese destino (la guía de GPU de Ollama documenta HSA_OVERRIDE_GFX_VERSION=10.3.0 para una GPU gfx1034); AMD no lo admite, no tiene efecto en Windows, y un valor erróneo hace que el programa se bloquee o calcule resultados incorrectos.</translation>
    </message>
    <message>
        <source>rocBLAS has no kernels for this AMD GPU ({gfx}): it found no kernel library for it ({library}).</source>
        <translation>rocBLAS no tiene kernels para esta GPU AMD ({gfx}): no encontró ninguna biblioteca de kernels para ella ({library}).</translation>
    </message>
    <message>
        <source>The installed rocBLAS (from ROCm, the HIP SDK on Windows, or a program&apos;s own copy) was not built for {gfx}. Install a ROCm or HIP SDK release that supports {gfx} (AMD&apos;s compatibility matrix lists the GPUs of each release), or use a program build that brings a rocBLAS for it. On Linux, for a GPU of the same family as a supported target, HSA_OVERRIDE_GFX_VERSION makes ROCm use that target&apos;s kernels (Ollama&apos;s GPU guide documents it); AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results.</source>
        <translation>El rocBLAS instalado (de ROCm, del HIP SDK en Windows o la copia propia de un programa) no se compiló para {gfx}. Instala una versión de ROCm o del HIP SDK que admita {gfx} (la matriz de compatibilidad de AMD enumera las GPU de cada versión) o usa una compilación del programa que traiga un rocBLAS para ella. En Linux, para una GPU de la misma familia que un destino compatible, HSA_OVERRIDE_GFX_VERSION hace que ROCm use los kernels de ese destino (la guía de GPU de Ollama lo documenta); AMD no lo admite, no tiene efecto en Windows, y un valor erróneo hace que el programa se bloquee o calcule resultados incorrectos.</translation>
    </message>
    <message>
        <source>Ollama&apos;s ROCm libraries do not support this AMD GPU ({gfx}), so Ollama runs on the CPU.</source>
        <translation>Las bibliotecas ROCm de Ollama no admiten esta GPU AMD ({gfx}), así que Ollama se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>Ollama&apos;s GPU guide lists the gfx targets its ROCm build supports. On Linux, for a GPU of the same family as one of them, set HSA_OVERRIDE_GFX_VERSION in the Ollama server&apos;s environment (the guide&apos;s example: HSA_OVERRIDE_GFX_VERSION=10.3.0 for a gfx1034 GPU, to use gfx1030&apos;s code; HSA_OVERRIDE_GFX_VERSION_0, _1, ... per GPU) and restart the server. AMD does not support this, it has no effect on Windows, and a wrong value crashes or computes wrong results; otherwise a newer Ollama release may support {gfx}.</source>
        <translation>La guía de GPU de Ollama enumera los destinos gfx que admite su compilación ROCm. En Linux, para una GPU de la misma familia que uno de ellos, establece HSA_OVERRIDE_GFX_VERSION en el entorno del servidor de Ollama (el ejemplo de la guía: HSA_OVERRIDE_GFX_VERSION=10.3.0 para una GPU gfx1034, para usar el código de gfx1030; HSA_OVERRIDE_GFX_VERSION_0, _1, ... por GPU) y reinicia el servidor. AMD no lo admite, no tiene efecto en Windows, y un valor erróneo hace que el programa se bloquee o calcule resultados incorrectos; si no, puede que una versión más reciente de Ollama admita {gfx}.</translation>
    </message>
    <message>
        <source>The ROCm runtime found no AMD GPU it can use.</source>
        <translation>El runtime de ROCm no encontró ninguna GPU AMD que pueda usar.</translation>
    </message>
    <message>
        <source>Check that &apos;rocminfo&apos; lists the GPU as an agent with a gfx name: if not, the amdgpu kernel driver is not loaded or the GPU is not one the installed ROCm release supports (AMD&apos;s compatibility matrix). Check that this user can open /dev/kfd and /dev/dri (members of the render and video groups: &apos;sudo usermod -a -G render,video $LOGNAME&apos;, then log in again), that HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES does not hide it, and, in a container, that it was started with --device=/dev/kfd --device=/dev/dri.</source>
        <translation>Comprueba que &apos;rocminfo&apos; muestre la GPU como agente con un nombre gfx: si no, el controlador del kernel amdgpu no está cargado o la GPU no es una de las que admite la versión de ROCm instalada (matriz de compatibilidad de AMD). Comprueba que este usuario pueda abrir /dev/kfd y /dev/dri (miembros de los grupos render y video: &apos;sudo usermod -a -G render,video $LOGNAME&apos; y después vuelve a iniciar sesión), que HIP_VISIBLE_DEVICES o ROCR_VISIBLE_DEVICES no la oculten y, en un contenedor, que se haya iniciado con --device=/dev/kfd --device=/dev/dri.</translation>
    </message>
    <message>
        <source>The ROCm runtime could not start: it failed to open the GPU through the kernel driver (/dev/kfd).</source>
        <translation>El runtime de ROCm no pudo iniciarse: no logró abrir la GPU a través del controlador del kernel (/dev/kfd).</translation>
    </message>
    <message>
        <source>Usual causes: this user may not open /dev/kfd (add it to the render and video groups: &apos;sudo usermod -a -G render,video $LOGNAME&apos;, then log in again; if it works as root, this is it), the amdgpu kernel driver does not serve this GPU for compute (&apos;sudo dmesg | grep kfd&apos; then says it is not supported: an older GPU that ROCm does not support), or a container was started without --device=/dev/kfd --device=/dev/dri.</source>
        <translation>Causas habituales: este usuario no tiene permiso para abrir /dev/kfd (añádelo a los grupos render y video: &apos;sudo usermod -a -G render,video $LOGNAME&apos; y después vuelve a iniciar sesión; si funciona como root, es esto), el controlador del kernel amdgpu no ofrece esta GPU para cómputo (&apos;sudo dmesg | grep kfd&apos; indica entonces que no es compatible: una GPU antigua que ROCm no admite), o se inició un contenedor sin --device=/dev/kfd --device=/dev/dri.</translation>
    </message>
    <message>
        <source>The HIP runtime found no AMD GPU it can use.</source>
        <translation>El runtime de HIP no encontró ninguna GPU AMD que pueda usar.</translation>
    </message>
    <message>
        <source>On Windows, HIP reaches the GPU through the AMD Software (Adrenalin) graphics driver: install its current version and restart, and check that the GPU is on the list of GPUs the installed HIP SDK release supports (AMD&apos;s &apos;System requirements (Windows)&apos;); a GPU outside it is not detected.</source>
        <translation>En Windows, HIP accede a la GPU a través del controlador de gráficos AMD Software (Adrenalin): instala su versión actual y reinicia, y comprueba que la GPU esté en la lista de GPU que admite la versión instalada del HIP SDK (&apos;System requirements (Windows)&apos; de AMD); una GPU que no figure en ella no se detecta.</translation>
    </message>
    <message>
        <source>This user cannot open the GPU&apos;s device file /dev/kfd (&apos;{reason}&apos;), so ROCm sees no GPU.</source>
        <translation>Este usuario no puede abrir el archivo de dispositivo de la GPU /dev/kfd (&apos;{reason}&apos;), así que ROCm no ve ninguna GPU.</translation>
    </message>
    <message>
        <source>ROCm needs read and write access to /dev/kfd and /dev/dri/renderD*, which belong to the render group (on older systems the video group). Add the user to both (&apos;sudo usermod -a -G render,video $LOGNAME&apos;), then log out and in again. In a container, pass the devices and a group that owns them: &apos;docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render ...&apos; (&apos;ls -l /dev/kfd&apos; shows the group).</source>
        <translation>ROCm necesita acceso de lectura y escritura a /dev/kfd y /dev/dri/renderD*, que pertenecen al grupo render (en sistemas antiguos, al grupo video). Añade el usuario a ambos (&apos;sudo usermod -a -G render,video $LOGNAME&apos;), cierra la sesión y vuelve a iniciarla. En un contenedor, pasa los dispositivos y un grupo propietario de ellos: &apos;docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render ...&apos; (&apos;ls -l /dev/kfd&apos; muestra el grupo).</translation>
    </message>
    <message>
        <source>{library}, part of AMD&apos;s ROCm ({component}), could not be loaded: ROCm is not installed, or not on the library path.</source>
        <translation>No se pudo cargar {library}, parte de ROCm de AMD ({component}): ROCm no está instalado o no está en la ruta de bibliotecas.</translation>
    </message>
    <message>
        <source>Install ROCm as AMD&apos;s installation guide says (amdgpu-install, or the distribution&apos;s ROCm packages), the release the program was built for, and make its library folder (/opt/rocm/lib) known to the loader. PyTorch&apos;s ROCm wheels bring their own ROCm libraries; programs such as llama.cpp&apos;s HIP build or ONNX Runtime&apos;s ROCm build use the system&apos;s.</source>
        <translation>Instala ROCm como indica la guía de instalación de AMD (amdgpu-install, o los paquetes ROCm de la distribución), en la versión para la que se compiló el programa, y haz que el cargador conozca su carpeta de bibliotecas (/opt/rocm/lib). Los wheels ROCm de PyTorch traen sus propias bibliotecas de ROCm; programas como la compilación HIP de llama.cpp o la compilación ROCm de ONNX Runtime usan las del sistema.</translation>
    </message>
    <message>
        <source>{library}, the HIP runtime of ROCm {rocm}, could not be loaded: ROCm {rocm} is not installed, or not on the library path.</source>
        <translation>No se pudo cargar {library}, el runtime de HIP de ROCm {rocm}: ROCm {rocm} no está instalado o no está en la ruta de bibliotecas.</translation>
    </message>
    <message>
        <source>The program was built against ROCm {rocm} (the number after .so is HIP&apos;s major version, which is ROCm&apos;s). Install ROCm {rocm}.x as AMD&apos;s installation guide says (amdgpu-install, or the distribution&apos;s ROCm packages) and make its library folder (/opt/rocm/lib) known to the loader, or install a build of the program for the ROCm release you have. PyTorch&apos;s ROCm wheels bring their own HIP runtime.</source>
        <translation>El programa se compiló con ROCm {rocm} (el número tras .so es la versión mayor de HIP, que es la de ROCm). Instala ROCm {rocm}.x como indica la guía de instalación de AMD (amdgpu-install, o los paquetes ROCm de la distribución) y haz que el cargador conozca su carpeta de bibliotecas (/opt/rocm/lib), o instala una compilación del programa para la versión de ROCm que tienes. Los wheels ROCm de PyTorch traen su propio runtime de HIP.</translation>
    </message>
    <message>
        <source>PyTorch found no Intel GPU (XPU) it can use.</source>
        <translation>PyTorch no encontró ninguna GPU Intel (XPU) que pueda usar.</translation>
    </message>
    <message>
        <source>PyTorch&apos;s XPU build reaches the GPU through Intel&apos;s graphics driver (Level Zero). Install Intel&apos;s current graphics driver (Windows: the Arc and Iris Xe graphics driver; Linux: the client GPU packages of Intel&apos;s guide &apos;PyTorch Installation Prerequisites for Intel GPUs&apos;), at least the version the PyTorch or IPEX XPU release asks for: an older driver does not show the GPU. Check that the GPU is one PyTorch&apos;s XPU builds support (Intel Arc A- and B-series, Core Ultra graphics, Data Center GPU Max), that this user can open /dev/dri/renderD* (the render group), and that &apos;sycl-ls&apos; lists it as a level_zero:gpu device.</source>
        <translation>La compilación XPU de PyTorch accede a la GPU a través del controlador de gráficos de Intel (Level Zero). Instala el controlador de gráficos actual de Intel (Windows: el controlador de gráficos Arc e Iris Xe; Linux: los paquetes de GPU cliente de la guía de Intel &apos;PyTorch Installation Prerequisites for Intel GPUs&apos;), como mínimo la versión que pide la versión XPU de PyTorch o IPEX: un controlador más antiguo no muestra la GPU. Comprueba que la GPU sea una de las que admiten las compilaciones XPU de PyTorch (Intel Arc series A y B, gráficos Core Ultra, Data Center GPU Max), que este usuario pueda abrir /dev/dri/renderD* (el grupo render) y que &apos;sycl-ls&apos; la muestre como dispositivo level_zero:gpu.</translation>
    </message>
    <message>
        <source>{library}, part of Intel&apos;s GPU software ({component}), could not be loaded.</source>
        <translation>No se pudo cargar {library}, parte del software de GPU de Intel ({component}).</translation>
    </message>
    <message>
        <source>Intel GPU programs need Intel&apos;s graphics driver with its Level Zero loader (from the driver&apos;s packages, not pip) and the oneAPI runtime their release was built for. Install both as the program&apos;s installation guide says (for PyTorch: &apos;PyTorch Installation Prerequisites for Intel GPUs&apos;); then &apos;sycl-ls&apos; should list the GPU as a level_zero:gpu device.</source>
        <translation>Los programas para GPU Intel necesitan el controlador de gráficos de Intel con su cargador Level Zero (de los paquetes del controlador, no de pip) y el runtime de oneAPI para el que se compiló su versión. Instala ambos como indica la guía de instalación del programa (para PyTorch: &apos;PyTorch Installation Prerequisites for Intel GPUs&apos;); después, &apos;sycl-ls&apos; debería mostrar la GPU como dispositivo level_zero:gpu.</translation>
    </message>
    <message>
        <source>{library}, the Level Zero loader of Intel&apos;s graphics driver, could not be loaded.</source>
        <translation>No se pudo cargar {library}, el cargador Level Zero del controlador de gráficos de Intel.</translation>
    </message>
    <message>
        <source>Intel GPU programs (PyTorch&apos;s XPU build, IPEX, llama.cpp&apos;s SYCL build) reach the GPU through Level Zero, which comes with Intel&apos;s graphics driver packages, not with pip. On Linux, install the Level Zero loader and GPU driver as Intel&apos;s client GPU guide says (libze1 and libze-intel-gpu1; level-zero and intel-level-zero-gpu on older releases); under WSL 2, follow Intel&apos;s WSL instructions. Then &apos;sycl-ls&apos; should list the GPU as a level_zero:gpu device.</source>
        <translation>Los programas para GPU Intel (la compilación XPU de PyTorch, IPEX, la compilación SYCL de llama.cpp) acceden a la GPU a través de Level Zero, que viene con los paquetes del controlador de gráficos de Intel, no con pip. En Linux, instala el cargador Level Zero y el controlador de GPU como indica la guía de GPU cliente de Intel (libze1 y libze-intel-gpu1; level-zero e intel-level-zero-gpu en versiones antiguas); en WSL 2, sigue las instrucciones de Intel para WSL. Después, &apos;sycl-ls&apos; debería mostrar la GPU como dispositivo level_zero:gpu.</translation>
    </message>
    <message>
        <source>{library}, part of Intel&apos;s oneAPI runtime ({component}), could not be loaded.</source>
        <translation>No se pudo cargar {library}, parte del runtime oneAPI de Intel ({component}).</translation>
    </message>
    <message>
        <source>The Intel Extension for PyTorch (IPEX) XPU build loads the oneAPI libraries (oneMKL, the SYCL runtime) of the oneAPI release it was built for. Install that oneAPI release and set its environment before starting Python (&apos;source /opt/intel/oneapi/setvars.sh&apos;), or install the IPEX and PyTorch XPU releases whose wheels bring these libraries from pip (PyTorch&apos;s XPU wheels depend on intel-sycl-rt and onemkl-sycl-*), as their installation guides say.</source>
        <translation>La compilación XPU de Intel Extension for PyTorch (IPEX) carga las bibliotecas de oneAPI (oneMKL, el runtime de SYCL) de la versión de oneAPI para la que se compiló. Instala esa versión de oneAPI y configura su entorno antes de iniciar Python (&apos;source /opt/intel/oneapi/setvars.sh&apos;), o instala desde pip las versiones XPU de IPEX y PyTorch cuyos wheels traen estas bibliotecas (los wheels XPU de PyTorch dependen de intel-sycl-rt y onemkl-sycl-*), como indican sus guías de instalación.</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend has no implementation of {op} for the Apple GPU.</source>
        <translation>El backend MPS de PyTorch no tiene implementación de {op} para la GPU de Apple.</translation>
    </message>
    <message>
        <source>Newer PyTorch releases implement more operators for MPS: install the latest release (or a nightly build) first. Otherwise set PYTORCH_ENABLE_MPS_FALLBACK=1 in the environment before the program starts (not inside it): the operators MPS lacks then run on the CPU while the rest stays on the GPU. That costs speed: each fallback runs at CPU speed and copies its data between GPU and CPU memory (PyTorch&apos;s &apos;MPS Environment Variables&apos;).</source>
        <translation>Las versiones más recientes de PyTorch implementan más operadores para MPS: instala primero la última versión (o una compilación nightly). Si no, establece PYTORCH_ENABLE_MPS_FALLBACK=1 en el entorno antes de que se inicie el programa (no dentro de él): los operadores que le faltan a MPS se ejecutan entonces en la CPU y el resto sigue en la GPU. Eso cuesta velocidad: cada operador de respaldo se ejecuta a la velocidad de la CPU y copia sus datos entre la memoria de la GPU y la de la CPU (&apos;MPS Environment Variables&apos; de PyTorch).</translation>
    </message>
    <message>
        <source>The Apple GPU ran out of memory for PyTorch&apos;s MPS backend.</source>
        <translation>La GPU de Apple se quedó sin memoria para el backend MPS de PyTorch.</translation>
    </message>
    <message>
        <source>Use a smaller batch size, image size or model (or a half-precision one), close other programs that use the Mac&apos;s unified memory, and free PyTorch&apos;s cached GPU memory with torch.mps.empty_cache(). The limit is PyTorch&apos;s high watermark (PYTORCH_MPS_HIGH_WATERMARK_RATIO, 1.7 times the GPU&apos;s recommended working set by default); PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes it, as the message says, but then macOS itself can run out of memory and the system may slow to a crawl or crash (PyTorch&apos;s &apos;MPS Environment Variables&apos;).</source>
        <translation>Usa un tamaño de lote, un tamaño de imagen o un modelo más pequeños (o uno de media precisión), cierra otros programas que usen la memoria unificada del Mac y libera la memoria de GPU que PyTorch tiene en caché con torch.mps.empty_cache(). El límite es la marca de agua alta de PyTorch (PYTORCH_MPS_HIGH_WATERMARK_RATIO, de forma predeterminada 1.7 veces el conjunto de trabajo recomendado de la GPU); PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 lo elimina, como dice el mensaje, pero entonces el propio macOS puede quedarse sin memoria y el sistema puede volverse extremadamente lento o bloquearse (&apos;MPS Environment Variables&apos; de PyTorch).</translation>
    </message>
    <message>
        <source>The Apple GPU ran out of memory for PyTorch&apos;s MPS backend (MPS allocated {allocated}, other allocations {other}, limit {max_allowed}).</source>
        <translation>La GPU de Apple se quedó sin memoria para el backend MPS de PyTorch (MPS asignado {allocated}, otras asignaciones {other}, límite {max_allowed}).</translation>
    </message>
    <message>
        <source>Use a smaller batch size, image size or model (or a half-precision one), close other programs that use the Mac&apos;s unified memory, and free PyTorch&apos;s cached GPU memory with torch.mps.empty_cache(). The limit {max_allowed} is PyTorch&apos;s high watermark (PYTORCH_MPS_HIGH_WATERMARK_RATIO, 1.7 times the GPU&apos;s recommended working set by default); PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes it, as the message says, but then macOS itself can run out of memory and the system may slow to a crawl or crash (PyTorch&apos;s &apos;MPS Environment Variables&apos;).</source>
        <translation>Usa un tamaño de lote, un tamaño de imagen o un modelo más pequeños (o uno de media precisión), cierra otros programas que usen la memoria unificada del Mac y libera la memoria de GPU que PyTorch tiene en caché con torch.mps.empty_cache(). El límite {max_allowed} es la marca de agua alta de PyTorch (PYTORCH_MPS_HIGH_WATERMARK_RATIO, de forma predeterminada 1.7 veces el conjunto de trabajo recomendado de la GPU); PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 lo elimina, como dice el mensaje, pero entonces el propio macOS puede quedarse sin memoria y el sistema puede volverse extremadamente lento o bloquearse (&apos;MPS Environment Variables&apos; de PyTorch).</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend cannot hold {dtype} tensors: the Apple GPU has no 64-bit floating point.</source>
        <translation>El backend MPS de PyTorch no puede contener tensores {dtype}: la GPU de Apple no tiene coma flotante de 64 bits.</translation>
    </message>
    <message>
        <source>Convert data to float32 before moving it to &apos;mps&apos;: tensor.float() or .to(torch.float32), NumPy arrays with .astype(np.float32) (NumPy&apos;s default is float64, and torch.from_numpy keeps it), and remove torch.set_default_dtype(torch.float64) where code sets it. PYTORCH_ENABLE_MPS_FALLBACK does not help here. Where a computation needs float64, run that part on the CPU.</source>
        <translation>Convierte los datos a float32 antes de moverlos a &apos;mps&apos;: tensor.float() o .to(torch.float32), y los arrays de NumPy con .astype(np.float32) (el tipo predeterminado de NumPy es float64, y torch.from_numpy lo conserva); y elimina torch.set_default_dtype(torch.float64) donde el código lo establezca. PYTORCH_ENABLE_MPS_FALLBACK no ayuda aquí. Donde un cálculo necesite float64, ejecuta esa parte en la CPU.</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend has no support for the {dtype} data type.</source>
        <translation>El backend MPS de PyTorch no admite el tipo de datos {dtype}.</translation>
    </message>
    <message>
        <source>Convert the data or model to a type MPS supports (float32 or float16) before moving it to &apos;mps&apos;, or run that part on the CPU; for a model file in this type, use a float16 version of it.</source>
        <translation>Convierte los datos o el modelo a un tipo que MPS admita (float32 o float16) antes de moverlos a &apos;mps&apos;, o ejecuta esa parte en la CPU; si el archivo del modelo está en este tipo, usa una versión float16 de él.</translation>
    </message>
    <message>
        <source>PyTorch&apos;s MPS backend did not start: it says it needs macOS {minimum} or newer.</source>
        <translation>El backend MPS de PyTorch no se inició: indica que necesita macOS {minimum} o posterior.</translation>
    </message>
    <message>
        <source>The {component} reported {name} (error {number}): {meaning}</source>
        <translation>El {component} informó de {name} (error {number}): {meaning}</translation>
    </message>
    <message>
        <source>This is the CUDA stack&apos;s own error, reported by the program that failed. Check that the NVIDIA driver is current and that the program&apos;s CUDA build supports this GPU (&apos;gpuwizard detect&apos; shows the driver and the GPU), and search the error name together with the program&apos;s name for known causes.</source>
        <translation>Es un error propio de la pila CUDA, comunicado por el programa que falló. Comprueba que el controlador de NVIDIA está al día y que la compilación CUDA del programa admite esta GPU (&apos;gpuwizard detect&apos; muestra el controlador y la GPU), y busca el nombre del error junto con el nombre del programa para conocer causas ya descritas.</translation>
    </message>
    <message>
        <source>This is the ROCm stack&apos;s own error, reported by the program that failed. Check that the installed ROCm release and the program&apos;s build support this GPU (&apos;rocminfo&apos; names its gfx target), that this user can open /dev/kfd and /dev/dri (the render and video groups), and search the error name together with the program&apos;s name for known causes.</source>
        <translation>Este es un error propio de la pila de ROCm, notificado por el programa que falló. Comprueba que la versión de ROCm instalada y la compilación del programa admitan esta GPU (&apos;rocminfo&apos; indica su destino gfx) y que este usuario pueda abrir /dev/kfd y /dev/dri (los grupos render y video), y busca el nombre del error junto con el nombre del programa para encontrar causas conocidas.</translation>
    </message>
    <message>
        <source>The AMD kernel driver (amdgpu) is older than the ROCm release the program was built with. Install the amdgpu driver of that ROCm release as AMD&apos;s ROCm installation guide says (or a build of the program for the older ROCm), then restart the computer.</source>
        <translation>El controlador del kernel de AMD (amdgpu) es anterior a la versión de ROCm con la que se compiló el programa. Instala el controlador amdgpu de esa versión de ROCm como indica la guía de instalación de ROCm de AMD (o una compilación del programa para el ROCm más antiguo) y reinicia el equipo.</translation>
    </message>
    <message>
        <source>This is {component}&apos;s own status, reported by the program that failed. Check that the {component} version the program loads is the one it was built for, that the GPU has memory free, and that the NVIDIA driver is current (&apos;gpuwizard detect&apos; shows the driver and the GPU).</source>
        <translation>Es un estado propio de {component}, comunicado por el programa que falló. Comprueba que la versión de {component} que carga el programa es aquella con la que se compiló, que la GPU tiene memoria libre y que el controlador de NVIDIA está al día (&apos;gpuwizard detect&apos; muestra el controlador y la GPU).</translation>
    </message>
    <message>
        <source>This is {component}&apos;s own status, part of AMD&apos;s ROCm, reported by the program that failed. Check that the ROCm libraries the program loads come from the ROCm release it was built for, that the GPU is one that release supports (&apos;rocminfo&apos; names its gfx target), that it has memory free (&apos;rocm-smi&apos; shows it), and that this user can open /dev/kfd and /dev/dri (the render and video groups).</source>
        <translation>Este es el estado propio de {component}, parte de ROCm de AMD, notificado por el programa que falló. Comprueba que las bibliotecas de ROCm que carga el programa provengan de la versión de ROCm para la que se compiló, que la GPU sea una de las que admite esa versión (&apos;rocminfo&apos; indica su destino gfx), que tenga memoria libre (&apos;rocm-smi&apos; lo muestra) y que este usuario pueda abrir /dev/kfd y /dev/dri (los grupos render y video).</translation>
    </message>
    <message>
        <source>This is {component}&apos;s own status, part of Intel&apos;s GPU software (oneAPI), reported by the program that failed. Check that Intel&apos;s graphics driver is current (at least the one the PyTorch XPU or IPEX release asks for), that &apos;sycl-ls&apos; lists the GPU as a level_zero device, that the GPU has memory free, and that the oneAPI runtime the program loads is the one it was built for.</source>
        <translation>Este es el estado propio de {component}, parte del software de GPU de Intel (oneAPI), notificado por el programa que falló. Comprueba que el controlador de gráficos de Intel esté actualizado (como mínimo, el que pide la versión XPU de PyTorch o IPEX), que &apos;sycl-ls&apos; muestre la GPU como dispositivo level_zero, que la GPU tenga memoria libre y que el runtime de oneAPI que carga el programa sea aquel para el que se compiló.</translation>
    </message>
    <message>
        <source>This library comes with the NVIDIA driver, not with a Python package. Install or reinstall the NVIDIA driver; inside a container, start it with access to the GPU (docker run --gpus all, with the NVIDIA Container Toolkit) so that the driver&apos;s libraries are mounted into it.</source>
        <translation>Esta biblioteca viene con el controlador de NVIDIA, no con un paquete de Python. Instala o reinstala el controlador de NVIDIA; dentro de un contenedor, inícialo con acceso a la GPU (docker run --gpus all, con NVIDIA Container Toolkit) para que se monten en él las bibliotecas del controlador.</translation>
    </message>
    <message>
        <source>This log comes from WSL 1 (&apos;{evidence}&apos;), which cannot use the GPU: CUDA works only in WSL 2 distributions.</source>
        <translation>Este registro proviene de WSL 1 (&apos;{evidence}&apos;), que no puede usar la GPU: CUDA solo funciona en distribuciones de WSL 2.</translation>
    </message>
    <message>
        <source>Convert the distribution to WSL 2. In PowerShell or cmd on Windows, list the distributions and their versions with &apos;wsl -l -v&apos;, convert yours with &apos;wsl --set-version &lt;distro&gt; 2&apos;, and run &apos;wsl --set-default-version 2&apos; so that new ones are WSL 2 too. If the conversion fails with HCS_E_HYPERV_NOT_INSTALLED or 0x80370102, turn on virtualization first. Inside WSL 2 the Windows NVIDIA driver serves the GPU: do not install a Linux NVIDIA driver in the distribution, and remove one that is there.</source>
        <translation>Convierte la distribución a WSL 2. En PowerShell o cmd en Windows, muestra las distribuciones y sus versiones con &apos;wsl -l -v&apos;, convierte la tuya con &apos;wsl --set-version &lt;distro&gt; 2&apos; y ejecuta &apos;wsl --set-default-version 2&apos; para que las nuevas también sean WSL 2. Si la conversión falla con HCS_E_HYPERV_NOT_INSTALLED o 0x80370102, activa primero la virtualización. Dentro de WSL 2, el controlador NVIDIA de Windows da servicio a la GPU: no instales un controlador NVIDIA de Linux en la distribución y elimina el que haya.</translation>
    </message>
    <message>
        <source>The WSL distribution &apos;{distro}&apos; runs as WSL 1 (&apos;{evidence}&apos;), which cannot use the GPU: CUDA works only in WSL 2 distributions.</source>
        <translation>La distribución de WSL &apos;{distro}&apos; se ejecuta como WSL 1 (&apos;{evidence}&apos;), que no puede usar la GPU: CUDA solo funciona en distribuciones de WSL 2.</translation>
    </message>
    <message>
        <source>Convert it to WSL 2: in PowerShell or cmd on Windows, run &apos;wsl --set-version {distro} 2&apos; (it can take minutes; back up large projects first), then &apos;wsl --set-default-version 2&apos; so that new distributions are WSL 2 too. &apos;wsl -l -v&apos; must then show VERSION 2. If the conversion fails with HCS_E_HYPERV_NOT_INSTALLED or 0x80370102, turn on virtualization first. Inside WSL 2 the Windows NVIDIA driver serves the GPU: do not install a Linux NVIDIA driver in the distribution.</source>
        <translation>Conviértela a WSL 2: en PowerShell o cmd en Windows, ejecuta &apos;wsl --set-version {distro} 2&apos; (puede tardar minutos; haz antes una copia de seguridad de los proyectos grandes) y después &apos;wsl --set-default-version 2&apos; para que las nuevas distribuciones también sean WSL 2. Después, &apos;wsl -l -v&apos; debe mostrar VERSION 2. Si la conversión falla con HCS_E_HYPERV_NOT_INSTALLED o 0x80370102, activa primero la virtualización. Dentro de WSL 2, el controlador NVIDIA de Windows da servicio a la GPU: no instales un controlador NVIDIA de Linux en la distribución.</translation>
    </message>
    <message>
        <source>WSL 2 could not start its virtual machine (&apos;{evidence}&apos;): virtualization is off in the computer&apos;s firmware, or the Virtual Machine Platform feature of Windows is not enabled.</source>
        <translation>WSL 2 no pudo iniciar su máquina virtual (&apos;{evidence}&apos;): la virtualización está desactivada en el firmware del equipo, o la característica Plataforma de máquina virtual de Windows no está habilitada.</translation>
    </message>
    <message>
        <source>Turn on virtualization in the firmware (UEFI/BIOS) setup, usually among the CPU settings: &apos;Intel Virtualization Technology&apos; (VT-x) or, on AMD, &apos;SVM Mode&apos; (AMD-V). Then, in PowerShell or cmd run as administrator, enable the Virtual Machine Platform with &apos;wsl.exe --install --no-distribution&apos; (or &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;) and restart Windows. If both are on already, &apos;bcdedit /enum | findstr -i hypervisorlaunchtype&apos; (as administrator) must not say Off; if it does, run &apos;bcdedit /set hypervisorlaunchtype Auto&apos; and restart. For 0x80370114 (the Host Compute Service missing), also turn on &apos;Hyper-V&apos; with its &apos;Hyper-V Hypervisor&apos; and &apos;Hyper-V Services&apos; in &apos;Turn Windows features on or off&apos; where Windows has them, and restart. When Windows itself runs in a virtual machine, its host must allow nested virtualization. WSL 2 also needs a CPU with SLAT (Intel Core 1st generation or AMD Opteron and newer).</source>
        <translation>Activa la virtualización en la configuración del firmware (UEFI/BIOS), normalmente entre las opciones de la CPU: &apos;Intel Virtualization Technology&apos; (VT-x) o, en AMD, &apos;SVM Mode&apos; (AMD-V). Después, en PowerShell o cmd ejecutados como administrador, habilita la Plataforma de máquina virtual con &apos;wsl.exe --install --no-distribution&apos; (o &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;) y reinicia Windows. Si ambas ya están activadas, &apos;bcdedit /enum | findstr -i hypervisorlaunchtype&apos; (como administrador) no debe indicar Off; si lo indica, ejecuta &apos;bcdedit /set hypervisorlaunchtype Auto&apos; y reinicia. Para 0x80370114 (falta el Host Compute Service), activa también &apos;Hyper-V&apos; con su &apos;Hipervisor de Hyper-V&apos; y sus &apos;Servicios de Hyper-V&apos; en &apos;Activar o desactivar las características de Windows&apos;, si tu Windows los incluye, y reinicia. Cuando el propio Windows se ejecuta en una máquina virtual, su host debe permitir la virtualización anidada. WSL 2 también necesita una CPU con SLAT (Intel Core de 1.ª generación o AMD Opteron y posteriores).</translation>
    </message>
    <message>
        <source>The Windows Subsystem for Linux is not enabled on this Windows (&apos;{evidence}&apos;), so no distribution can start.</source>
        <translation>El Subsistema de Windows para Linux no está habilitado en este Windows (&apos;{evidence}&apos;), por lo que no se puede iniciar ninguna distribución.</translation>
    </message>
    <message>
        <source>In PowerShell or cmd run as administrator, run &apos;wsl.exe --install --no-distribution&apos; (or &apos;dism.exe /online /enable-feature /featurename:Microsoft-Windows-Subsystem-Linux /all /norestart&apos; and, for WSL 2, &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;), restart Windows, then start the distribution again. The GPU needs WSL 2: check with &apos;wsl -l -v&apos; that the distribution&apos;s VERSION is 2.</source>
        <translation>En PowerShell o cmd ejecutados como administrador, ejecuta &apos;wsl.exe --install --no-distribution&apos; (o &apos;dism.exe /online /enable-feature /featurename:Microsoft-Windows-Subsystem-Linux /all /norestart&apos; y, para WSL 2, &apos;dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart&apos;), reinicia Windows y vuelve a iniciar la distribución. La GPU necesita WSL 2: comprueba con &apos;wsl -l -v&apos; que la VERSION de la distribución sea 2.</translation>
    </message>
    <message>
        <source>The WSL 2 distribution ran out of disk space (&apos;{evidence}&apos;): its files live in a virtual disk (ext4.vhdx) with a maximum size, on a Windows drive that must have room for it to grow.</source>
        <translation>La distribución de WSL 2 se quedó sin espacio en disco (&apos;{evidence}&apos;): sus archivos se guardan en un disco virtual (ext4.vhdx) con un tamaño máximo, en una unidad de Windows que debe tener espacio para que crezca.</translation>
    </message>
    <message>
        <source>In the distribution&apos;s shell, see what is full: &apos;df -h / /tmp&apos;. Free space there: &apos;pip cache purge&apos;, &apos;uv cache clean&apos;, &apos;conda clean --all&apos;, and environments or models you no longer need. If &apos;/&apos; is at 100% of its size, grow the virtual disk from Windows, in PowerShell or cmd: &apos;wsl --shutdown&apos;, then &apos;wsl --manage &lt;distro&gt; --resize 2TB&apos; (any size larger than the one &apos;df -h /&apos; shows; WSL 2.5 and newer; older WSL: the diskpart steps of Microsoft&apos;s &apos;How to manage WSL disk space&apos;). If instead the Windows drive that holds the distribution is full, free space on it or move the distribution to another drive: &apos;wsl --shutdown&apos;, then &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos;. Deleting files inside WSL does not give the space back to Windows by itself.</source>
        <translation>En el shell de la distribución, comprueba qué está lleno: &apos;df -h / /tmp&apos;. Libera espacio ahí: &apos;pip cache purge&apos;, &apos;uv cache clean&apos;, &apos;conda clean --all&apos;, así como entornos o modelos que ya no necesites. Si &apos;/&apos; está al 100 % de su tamaño, amplía el disco virtual desde Windows, en PowerShell o cmd: &apos;wsl --shutdown&apos; y después &apos;wsl --manage &lt;distro&gt; --resize 2TB&apos; (cualquier tamaño mayor que el que muestra &apos;df -h /&apos;; WSL 2.5 y posteriores; en versiones anteriores de WSL: los pasos con diskpart de &apos;Cómo administrar el espacio en disco de WSL&apos;, de Microsoft). Si, en cambio, la unidad de Windows que contiene la distribución está llena, libera espacio en ella o mueve la distribución a otra unidad: &apos;wsl --shutdown&apos; y después &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos;. Borrar archivos dentro de WSL no devuelve por sí solo el espacio a Windows.</translation>
    </message>
    <message>
        <source>The Windows drive ran out of space for WSL (&apos;{evidence}&apos;): the drive that holds the distribution&apos;s virtual disk (ext4.vhdx), or the file being written, is full.</source>
        <translation>La unidad de Windows se quedó sin espacio para WSL (&apos;{evidence}&apos;): la unidad que contiene el disco virtual de la distribución (ext4.vhdx), o el archivo que se está escribiendo, está llena.</translation>
    </message>
    <message>
        <source>Free space on that Windows drive (Settings &gt; System &gt; Storage), or move the distribution to a drive with room: in PowerShell or cmd, &apos;wsl --shutdown&apos;, then &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos; (&apos;wsl -l -v&apos; lists the names). For &apos;wsl --export&apos;, give a file on a drive with room. Deleting files inside WSL does not give the space back to Windows by itself; inside the distribution, &apos;df -h /&apos; shows how full its own disk is.</source>
        <translation>Libera espacio en esa unidad de Windows (Configuración &gt; Sistema &gt; Almacenamiento) o mueve la distribución a una unidad con espacio: en PowerShell o cmd, &apos;wsl --shutdown&apos; y después &apos;wsl --manage &lt;distro&gt; --move D:\WSL\&lt;distro&gt;&apos; (&apos;wsl -l -v&apos; muestra los nombres). Para &apos;wsl --export&apos;, indica un archivo en una unidad con espacio. Borrar archivos dentro de WSL no devuelve por sí solo el espacio a Windows; dentro de la distribución, &apos;df -h /&apos; muestra cuánto está ocupado su propio disco.</translation>
    </message>
    <message>
        <source>A process was killed inside WSL 2 (&apos;{evidence}&apos;): most often Linux&apos;s out-of-memory killer, because the WSL 2 virtual machine gets only part of the computer&apos;s memory (by default half of it).</source>
        <translation>Se finalizó un proceso dentro de WSL 2 (&apos;{evidence}&apos;): casi siempre lo hace el OOM killer de Linux (el mecanismo que actúa cuando falta memoria), porque la máquina virtual de WSL 2 recibe solo una parte de la memoria del equipo (de forma predeterminada, la mitad).</translation>
    </message>
    <message>
        <source>This is the computer&apos;s memory (RAM), not the GPU&apos;s. Give the WSL 2 virtual machine more memory or swap: on Windows, open the file .wslconfig in your user folder (PowerShell: &apos;notepad $env:USERPROFILE\.wslconfig&apos;; cmd: &apos;notepad %UserProfile%\.wslconfig&apos;; or the WSL Settings app), put under a &apos;[wsl2]&apos; line for example &apos;memory=24GB&apos; and &apos;swap=16GB&apos; (leave Windows a few GB), save, run &apos;wsl --shutdown&apos; and open the distribution again; &apos;free -h&apos; inside it shows the new total. Or use less memory: a smaller batch size, fewer data-loader workers, a smaller or quantised model. Inside the distribution, &apos;sudo dmesg | grep -i -E &quot;out of memory|oom&quot;&apos; confirms an out-of-memory kill.</source>
        <translation>Se trata de la memoria del equipo (RAM), no de la de la GPU. Da más memoria o swap a la máquina virtual de WSL 2: en Windows, abre el archivo .wslconfig de tu carpeta de usuario (PowerShell: &apos;notepad $env:USERPROFILE\.wslconfig&apos;; cmd: &apos;notepad %UserProfile%\.wslconfig&apos;; o la aplicación Configuración de WSL), escribe bajo una línea &apos;[wsl2]&apos;, por ejemplo, &apos;memory=24GB&apos; y &apos;swap=16GB&apos; (deja unos pocos GB a Windows), guarda, ejecuta &apos;wsl --shutdown&apos; y vuelve a abrir la distribución; &apos;free -h&apos; dentro de ella muestra el nuevo total. O usa menos memoria: un tamaño de lote menor, menos workers del cargador de datos, un modelo más pequeño o cuantizado. Dentro de la distribución, &apos;sudo dmesg | grep -i -E &quot;out of memory|oom&quot;&apos; confirma que el proceso se finalizó por falta de memoria.</translation>
    </message>
    <message>
        <source>The NVIDIA driver is older than the CUDA release the program was built with. Update the NVIDIA driver (or install a build of the program for an older CUDA), then restart the program.</source>
        <translation>El controlador de NVIDIA es más antiguo que la versión de CUDA con la que se compiló el programa. Actualiza el controlador de NVIDIA (o instala una compilación del programa para una CUDA más antigua) y vuelve a iniciar el programa.</translation>
    </message>
    <message>
        <source>Install the CUDA Toolkit of the same major version as torch&apos;s CUDA (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; shows it) from https://developer.nvidia.com/cuda-toolkit-archive, then on Linux &apos;export CUDA_HOME=/usr/local/cuda&apos; and run the build again; in a conda environment &apos;conda install -c nvidia cuda-toolkit&apos; and &apos;export CUDA_HOME=$CONDA_PREFIX&apos;; on Windows the installer sets CUDA_PATH, which the build reads: open a new terminal before building again. In a container, use an image whose name contains &apos;devel&apos;. Many packages (flash-attn, DeepSpeed) also publish prebuilt wheels, which need no compiler.</source>
        <translation>Instala el CUDA Toolkit de la misma versión principal que la CUDA de torch (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; la muestra) desde https://developer.nvidia.com/cuda-toolkit-archive; después, en Linux, &apos;export CUDA_HOME=/usr/local/cuda&apos; y vuelve a compilar; en un entorno conda, &apos;conda install -c nvidia cuda-toolkit&apos; y &apos;export CUDA_HOME=$CONDA_PREFIX&apos;; en Windows el instalador define CUDA_PATH, que la compilación lee: abre una terminal nueva antes de volver a compilar. En un contenedor, usa una imagen cuyo nombre contenga &apos;devel&apos;. Muchos paquetes (flash-attn, DeepSpeed) también publican wheels precompilados, que no necesitan compilador.</translation>
    </message>
    <message>
        <source>Install CUDA Toolkit {cuda} (https://developer.nvidia.com/cuda-toolkit-archive, or in a conda environment &apos;conda install -c nvidia cuda-toolkit={cuda}&apos; with &apos;export CUDA_HOME=$CONDA_PREFIX&apos;), then on Linux &apos;export CUDA_HOME=/usr/local/cuda-{cuda}&apos; and run the build again (on Windows the installer sets CUDA_PATH, which the build reads: open a new terminal before building again). In a container, use an image whose name contains &apos;devel&apos;. Many packages (flash-attn, DeepSpeed) also publish prebuilt wheels, which need no compiler.</source>
        <translation>Instala el CUDA Toolkit {cuda} (https://developer.nvidia.com/cuda-toolkit-archive, o en un entorno conda &apos;conda install -c nvidia cuda-toolkit={cuda}&apos; con &apos;export CUDA_HOME=$CONDA_PREFIX&apos;); después, en Linux, &apos;export CUDA_HOME=/usr/local/cuda-{cuda}&apos; y vuelve a compilar (en Windows el instalador define CUDA_PATH, que la compilación lee: abre una terminal nueva antes de volver a compilar). En un contenedor, usa una imagen cuyo nombre contenga &apos;devel&apos;. Muchos paquetes (flash-attn, DeepSpeed) también publican wheels precompilados, que no necesitan compilador.</translation>
    </message>
    <message>
        <source>On Windows use triton-windows, whose wheels bring their own C compiler (TinyCC): &apos;pip uninstall triton&apos;, then &apos;pip install -U &quot;triton-windows&lt;3.7&quot;&apos;, choosing the line that matches torch (torch 2.7: &lt;3.4, 2.8: &lt;3.5, 2.9: &lt;3.6, 2.10: &lt;3.7). For ComfyUI&apos;s embedded Python, run python_embeded\python.exe -m pip instead of pip. torch.compile for the CPU also needs MSVC: install the Visual Studio Build Tools (https://aka.ms/vs/17/release/vs_BuildTools.exe, &apos;Desktop development with C++&apos;). Triton for other GPUs (Intel&apos;s XPU build) brings no compiler: it needs one on PATH or named in CC.</source>
        <translation>En Windows usa triton-windows, cuyos wheels traen su propio compilador de C (TinyCC): &apos;pip uninstall triton&apos; y después &apos;pip install -U &quot;triton-windows&lt;3.7&quot;&apos;, eligiendo la línea que corresponde a torch (torch 2.7: &lt;3.4, 2.8: &lt;3.5, 2.9: &lt;3.6, 2.10: &lt;3.7). Con el Python integrado de ComfyUI, ejecuta python_embeded\python.exe -m pip en lugar de pip. torch.compile para la CPU también necesita MSVC: instala las Visual Studio Build Tools (https://aka.ms/vs/17/release/vs_BuildTools.exe, &apos;Desarrollo para el escritorio con C++&apos;). Triton para otras GPU (la versión XPU de Intel) no trae compilador: necesita uno en PATH o indicado en CC.</translation>
    </message>
    <message>
        <source>On Windows use triton-windows, whose wheels bring their own C compiler (TinyCC); for torch {torch}: &apos;pip uninstall triton&apos;, then &apos;pip install -U &quot;triton-windows&lt;{below}&quot;&apos;. For ComfyUI&apos;s embedded Python, run python_embeded\python.exe -m pip instead of pip. torch.compile for the CPU also needs MSVC: install the Visual Studio Build Tools (https://aka.ms/vs/17/release/vs_BuildTools.exe, &apos;Desktop development with C++&apos;). Triton for other GPUs (Intel&apos;s XPU build) brings no compiler: it needs one on PATH or named in CC.</source>
        <translation>En Windows usa triton-windows, cuyos wheels traen su propio compilador de C (TinyCC); para torch {torch}: &apos;pip uninstall triton&apos; y después &apos;pip install -U &quot;triton-windows&lt;{below}&quot;&apos;. Con el Python integrado de ComfyUI, ejecuta python_embeded\python.exe -m pip en lugar de pip. torch.compile para la CPU también necesita MSVC: instala las Visual Studio Build Tools (https://aka.ms/vs/17/release/vs_BuildTools.exe, &apos;Desarrollo para el escritorio con C++&apos;). Triton para otras GPU (la versión XPU de Intel) no trae compilador: necesita uno en PATH o indicado en CC.</translation>
    </message>
    <message>
        <source>Set USE_LIBUV=0 in the environment before the program starts (PowerShell: $env:USE_LIBUV=&quot;0&quot;; cmd: set USE_LIBUV=0; in Python before torch.distributed starts: os.environ[&quot;USE_LIBUV&quot;] = &quot;0&quot;), or add ?use_libuv=0 to an init_method URL (init_method=&quot;env://?use_libuv=0&quot;). Use the gloo backend on Windows, or run the program in WSL 2. If you meant to train on one GPU, run without torch.distributed: in &apos;accelerate config&apos; choose &apos;No distributed training&apos;, or start with &apos;accelerate launch --num_processes 1&apos;.</source>
        <translation>Establece USE_LIBUV=0 en el entorno antes de que se inicie el programa (PowerShell: $env:USE_LIBUV=&quot;0&quot;; cmd: set USE_LIBUV=0; en Python, antes de que se inicie torch.distributed: os.environ[&quot;USE_LIBUV&quot;] = &quot;0&quot;), o añade ?use_libuv=0 a una URL de init_method (init_method=&quot;env://?use_libuv=0&quot;). Usa el backend gloo en Windows, o ejecuta el programa en WSL 2. Si querías entrenar en una sola GPU, ejecútalo sin torch.distributed: en &apos;accelerate config&apos; elige &apos;No distributed training&apos;, o inícialo con &apos;accelerate launch --num_processes 1&apos;.</translation>
    </message>
    <message>
        <source>Check the macOS version (&apos;sw_vers&apos;). If it is older, update macOS, or install an older PyTorch release that supports it (newer releases need newer macOS, whatever the message says: PyTorch 2.5 to 2.9 need macOS 13, PyTorch 2.10 and newer macOS 14); meanwhile the CPU works. If macOS is newer than that, compare it with the release&apos;s real minimum first; beyond it, MPS is missing for another reason: a Mac without a Metal GPU, a virtual machine, or an x86-64 Python running under Rosetta on Apple silicon (&apos;python3 -c &quot;import platform; print(platform.machine())&quot;&apos; should say arm64).</source>
        <translation>Comprueba la versión de macOS (&apos;sw_vers&apos;). Si es anterior, actualiza macOS o instala una versión anterior de PyTorch que lo admita (las versiones nuevas necesitan macOS más nuevo, diga lo que diga el mensaje: PyTorch 2.5 a 2.9 necesitan macOS 13, PyTorch 2.10 y posteriores macOS 14); mientras tanto, la CPU funciona. Si macOS es más nuevo que eso, compáralo primero con el mínimo real de la versión; más allá, falta MPS por otro motivo: un Mac sin GPU Metal, una máquina virtual o un Python x86-64 que se ejecuta con Rosetta en Apple silicon (&apos;python3 -c &quot;import platform; print(platform.machine())&quot;&apos; debería decir arm64).</translation>
    </message>
    <message>
        <source>{component} reported {name} (status {number}): {meaning}</source>
        <translation>{component} informó de {name} (estado {number}): {meaning}</translation>
    </message>
    <message>
        <source>The NVIDIA driver&apos;s parts do not match (often after a driver update without a restart). Restart the computer; if it persists, reinstall the NVIDIA driver.</source>
        <translation>Las partes del controlador de NVIDIA no coinciden (suele ocurrir tras actualizar el controlador sin reiniciar). Reinicia el equipo; si persiste, reinstala el controlador de NVIDIA.</translation>
    </message>
    <message>
        <source>Windows reported {name} ({number}, {hex}): {meaning}</source>
        <translation>Windows informó de {name} ({number}, {hex}): {meaning}</translation>
    </message>
    <message>
        <source>A program or one of the libraries it loads failed with this Windows error. For a module or DLL error, reinstall the package that ships the DLL and install the latest Microsoft Visual C++ Redistributable; for a memory error, close other programs or enlarge the paging file.</source>
        <translation>Un programa o una de las bibliotecas que carga falló con este error de Windows. Si es un error de módulo o de DLL, reinstala el paquete que trae la DLL e instala la última versión de Microsoft Visual C++ Redistributable; si es un error de memoria, cierra otros programas o amplía el archivo de paginación.</translation>
    </message>
    <message>
        <source>The system could not load {library}, part of {component}: the file was not found.</source>
        <translation>El sistema no pudo cargar {library}, parte de {component}: no se encontró el archivo.</translation>
    </message>
    <message>
        <source>Install {component} (it ships as {package}) in the same environment as the program, or make its folder known to the loader (LD_LIBRARY_PATH).</source>
        <translation>Instala {component} (se distribuye como {package}) en el mismo entorno que el programa, o da a conocer su carpeta al cargador (LD_LIBRARY_PATH).</translation>
    </message>
    <message>
        <source>{library}, part of {component}, lacks the symbol {symbol}: another version of it, or of a library it needs, was loaded.</source>
        <translation>A {library}, parte de {component}, le falta el símbolo {symbol}: se cargó otra versión de ella o de una biblioteca que necesita.</translation>
    </message>
    <message>
        <source>Two versions of {component} are probably installed. Keep the one the program was built for ({package}), and remove others from LD_LIBRARY_PATH and the system&apos;s library folders.</source>
        <translation>Probablemente hay dos versiones de {component} instaladas. Conserva aquella con la que se compiló el programa ({package}) y quita las demás de LD_LIBRARY_PATH y de las carpetas de bibliotecas del sistema.</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), install {machine_build}: &apos;{machine_command}&apos;.</source>
        <translation>Para esta máquina ({machine_gpu}, capacidad de cómputo {machine_capability}, controlador {machine_driver}), instala {machine_build}: &apos;{machine_command}&apos;.</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), install {machine_build} with Python {machine_python} (there is no such build for Python {log_python}, which the log shows): &apos;{machine_command}&apos;.</source>
        <translation>Para esta máquina ({machine_gpu}, capacidad de cómputo {machine_capability}, controlador {machine_driver}), instala {machine_build} con Python {machine_python} (no existe esa compilación para Python {log_python}, que es el que muestra el registro): &apos;{machine_command}&apos;.</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), {machine_build} fits once the NVIDIA driver is updated to {machine_min_driver} or newer; then: &apos;{machine_command}&apos;.</source>
        <translation>Para esta máquina ({machine_gpu}, capacidad de cómputo {machine_capability}, controlador {machine_driver}), {machine_build} sirve una vez que el controlador de NVIDIA se actualice a {machine_min_driver} o posterior; después: &apos;{machine_command}&apos;.</translation>
    </message>
    <message>
        <source>For this machine ({machine_gpu}, compute capability {machine_capability}, driver {machine_driver}), no {machine_framework} build that this wizard knows uses the GPU; {machine_build} runs on the CPU: &apos;{machine_command}&apos;.</source>
        <translation>Para esta máquina ({machine_gpu}, capacidad de cómputo {machine_capability}, controlador {machine_driver}), ninguna compilación de {machine_framework} que conozca este asistente usa la GPU; {machine_build} se ejecuta en la CPU: &apos;{machine_command}&apos;.</translation>
    </message>
    <message>
        <source>This machine has no NVIDIA GPU, so the CPU build is the one that runs here: run the code on the CPU (device &apos;cpu&apos; instead of &apos;cuda&apos;; many programs have an option for it, such as --cpu or --device cpu).</source>
        <translation>Esta máquina no tiene GPU NVIDIA, así que la versión para CPU es la que funciona aquí: ejecute el código en la CPU (el dispositivo &apos;cpu&apos; en lugar de &apos;cuda&apos;; muchos programas tienen una opción para ello, como --cpu o --device cpu).</translation>
    </message>
    <message>
        <source>This machine has no NVIDIA GPU, so TensorFlow runs on the CPU without {libraries}, as the log&apos;s next line says (&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;): nothing needs fixing.</source>
        <translation>Esta máquina no tiene GPU NVIDIA, así que TensorFlow funciona en la CPU sin {libraries}, como dice la línea siguiente del registro (&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;): no hay nada que arreglar.</translation>
    </message>
    <message>
        <source>This machine has no NVIDIA GPU, so TensorFlow runs on the CPU here, as the log says: nothing needs fixing.</source>
        <translation>Este equipo no tiene GPU de NVIDIA, así que TensorFlow se ejecuta aquí en la CPU, como dice el registro: no hay nada que arreglar.</translation>
    </message>
    <message>
        <source>The log itself says to ignore this where no GPU is set up (&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;): on a machine without an NVIDIA GPU, TensorFlow runs on the CPU and nothing needs fixing. On a machine with one:</source>
        <translation>El propio registro dice que se ignore donde no hay GPU configurada (&apos;Ignore above cudart dlerror if you do not have a GPU set up on your machine&apos;): en un equipo sin GPU de NVIDIA, TensorFlow se ejecuta en la CPU y no hay nada que arreglar. En un equipo con una:</translation>
    </message>
    <message>
        <source>If the machine this log comes from has no NVIDIA GPU, this is expected: TensorFlow runs on the CPU there, and nothing needs fixing. If it has one:</source>
        <translation>Si el equipo de donde procede este registro no tiene GPU de NVIDIA, es lo esperado: TensorFlow se ejecuta allí en la CPU y no hay nada que arreglar. Si tiene una:</translation>
    </message>
    <message>
        <source>For GPU training, run it on a machine with an NVIDIA GPU, with a CUDA build of the framework.</source>
        <extracomment>Where the GPU way is, after a sentence for a machine without an NVIDIA GPU.</extracomment>
        <translation>Para entrenar en GPU, ejecútelo en una máquina con GPU NVIDIA, con una versión CUDA del framework.</translation>
    </message>
    <message>
        <source>If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), rebuild or reinstall it for this GPU.</source>
        <extracomment>What follows the machine&apos;s sentence of these keys when it replaces the generic advice, whatever the code (before :data:`CONTEXT_TAILS`, which is by code). What follows the machine&apos;s sentence when it replaces a code&apos;s generic advice.</extracomment>
        <translation>Si el error procede de una extensión compilada por separado (detectron2, mamba-ssm, flash-attn), vuelve a compilarla o reinstálala para esta GPU.</translation>
    </message>
    <message>
        <source>Until then, GPU work fails with &apos;no kernel image is available for execution on the device&apos;.</source>
        <translation>Hasta entonces, el trabajo en la GPU falla con &apos;no kernel image is available for execution on the device&apos;.</translation>
    </message>
    <message>
        <source>Uninstall the CPU build first (&apos;pip uninstall torch&apos;), so that pip does not keep it.</source>
        <translation>Desinstala primero la compilación para CPU (&apos;pip uninstall torch&apos;), para que pip no la conserve.</translation>
    </message>
    <message>
        <source>The NVIDIA driver&apos;s kernel module is not running, so no program can reach the GPU.</source>
        <translation>El módulo del kernel del controlador de NVIDIA no está en ejecución, así que ningún programa puede acceder a la GPU.</translation>
    </message>
    <message>
        <source>Usually the driver or the kernel was updated and the module for the running kernel was not loaded or not built. Restart the computer first. If it persists, build the module for the running kernel: install its headers (&apos;sudo apt install linux-headers-$(uname -r)&apos; on Ubuntu and Debian) and run &apos;sudo dkms autoinstall&apos; (on Fedora with RPM Fusion: &apos;sudo akmods --force&apos;), or reinstall the driver package, then restart. With Secure Boot on, the module must be signed (enrol the key the driver installer offers) or the kernel refuses it: &apos;sudo dmesg | grep -i nvidia&apos; says why it did not load. In a container, the host&apos;s driver must work and the container must be started with GPU access (&apos;docker run --gpus all ...&apos;). Check with &apos;nvidia-smi&apos;. In WSL 2 there is no Linux kernel module: the driver is the Windows one, so update it on Windows and do not install a Linux NVIDIA driver inside WSL.</source>
        <translation>Normalmente se actualizó el controlador o el kernel, y el módulo para el kernel en ejecución no se cargó o no se compiló. Reinicia primero el equipo. Si el problema persiste, compila el módulo para el kernel en ejecución: instala sus cabeceras (&apos;sudo apt install linux-headers-$(uname -r)&apos; en Ubuntu y Debian) y ejecuta &apos;sudo dkms autoinstall&apos; (en Fedora con RPM Fusion: &apos;sudo akmods --force&apos;), o reinstala el paquete del controlador, y después reinicia. Con Secure Boot activado, el módulo debe estar firmado (registra la clave que ofrece el instalador del controlador) o el kernel lo rechaza: &apos;sudo dmesg | grep -i nvidia&apos; indica por qué no se cargó. En un contenedor, el controlador del host debe funcionar y el contenedor debe iniciarse con acceso a la GPU (&apos;docker run --gpus all ...&apos;). Compruébalo con &apos;nvidia-smi&apos;. En WSL 2 no hay módulo del kernel de Linux: el controlador es el de Windows, así que actualízalo en Windows y no instales un controlador de NVIDIA para Linux dentro de WSL.</translation>
    </message>
    <message>
        <source>The NVIDIA driver libraries are version {client} but the loaded kernel module is version {module}: the driver was updated without reloading its kernel module.</source>
        <translation>Las bibliotecas del controlador de NVIDIA son de la versión {client}, pero el módulo del kernel cargado es de la versión {module}: el controlador se actualizó sin recargar su módulo del kernel.</translation>
    </message>
    <message>
        <source>Restart the computer: the new module {client} is then loaded. Without a restart, reload the module: &apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos; (possible only when no program, such as the desktop, uses the GPU). If the mismatch comes back after a restart, the module for the running kernel was not rebuilt: run &apos;sudo dkms autoinstall&apos; (or reinstall the driver package) so that &apos;modinfo -F version nvidia&apos; prints {client}, then restart.</source>
        <translation>Reinicia el equipo: así se carga el nuevo módulo {client}. Sin reiniciar, recarga el módulo: &apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos; (solo es posible cuando ningún programa, como el escritorio, usa la GPU). Si la discrepancia vuelve tras reiniciar, el módulo para el kernel en ejecución no se recompiló: ejecuta &apos;sudo dkms autoinstall&apos; (o reinstala el paquete del controlador) para que &apos;modinfo -F version nvidia&apos; muestre {client}, y después reinicia.</translation>
    </message>
    <message>
        <source>CUDA error 803 (system has unsupported display driver / cuda driver combination): the CUDA driver library loaded does not match the NVIDIA kernel module.</source>
        <translation>Error de CUDA 803 (system has unsupported display driver / cuda driver combination): la biblioteca del controlador de CUDA cargada no coincide con el módulo del kernel de NVIDIA.</translation>
    </message>
    <message>
        <source>After a driver update, restart the computer (or reload the module: &apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos;, possible only when no program, such as the desktop, uses the GPU), so that the kernel module and libcuda have the same version; &apos;cat /sys/module/nvidia/version&apos; shows the module&apos;s. In a container whose host works, the image&apos;s CUDA forward-compatibility libcuda (/usr/local/cuda/compat) does not fit the host driver: take that folder out of LD_LIBRARY_PATH (or /etc/ld.so.conf.d) so the host&apos;s libcuda is used, or update the host driver to one that supports the image&apos;s CUDA.</source>
        <translation>Tras una actualización del controlador, reinicia el equipo (o recarga el módulo: &apos;sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &amp;&amp; sudo modprobe nvidia&apos;, solo posible cuando ningún programa, como el escritorio, usa la GPU), para que el módulo del kernel y libcuda tengan la misma versión; &apos;cat /sys/module/nvidia/version&apos; muestra la del módulo. En un contenedor cuyo host funciona, la libcuda de compatibilidad hacia adelante de CUDA de la imagen (/usr/local/cuda/compat) no encaja con el controlador del host: quita esa carpeta de LD_LIBRARY_PATH (o de /etc/ld.so.conf.d) para que se use la libcuda del host, o actualiza el controlador del host a uno compatible con la versión de CUDA de la imagen.</translation>
    </message>
    <message>
        <source>CUDA could not start: the system is not ready yet (error 802, &apos;system not yet initialized&apos;), which on servers whose GPUs are joined by NVSwitch means NVIDIA Fabric Manager is not running.</source>
        <translation>CUDA no pudo iniciarse: el sistema aún no está listo (error 802, &apos;system not yet initialized&apos;), lo que en servidores cuyas GPU están conectadas mediante NVSwitch significa que NVIDIA Fabric Manager no se está ejecutando.</translation>
    </message>
    <message>
        <source>On HGX and DGX servers (4 or 8 A100, H100, H200 or B200 GPUs joined by NVSwitch), install NVIDIA Fabric Manager of exactly the driver&apos;s version (for driver 570.x, the package nvidia-fabricmanager-570 at the same version) and start it: &apos;sudo systemctl enable --now nvidia-fabricmanager&apos;. &apos;systemctl status nvidia-fabricmanager&apos; shows why it stopped (a version that does not match the driver is refused), and &apos;nvidia-smi -q&apos; shows the fabric state of each GPU. In a container, this is done on the host.</source>
        <translation>En servidores HGX y DGX (4 u 8 GPU A100, H100, H200 o B200 conectadas mediante NVSwitch), instala NVIDIA Fabric Manager exactamente de la misma versión que el controlador (para el controlador 570.x, el paquete nvidia-fabricmanager-570 en la misma versión) e inícialo: &apos;sudo systemctl enable --now nvidia-fabricmanager&apos;. &apos;systemctl status nvidia-fabricmanager&apos; muestra por qué se detuvo (se rechaza una versión que no coincide con la del controlador), y &apos;nvidia-smi -q&apos; muestra el estado de la interconexión (fabric) de cada GPU. En un contenedor, esto se hace en el host.</translation>
    </message>
    <message>
        <source>CUDA could not initialise (error 3, &apos;initialization error&apos;), so the program runs on the CPU or stops.</source>
        <translation>CUDA no pudo inicializarse (error 3, &apos;initialization error&apos;), así que el programa se ejecuta en la CPU o se detiene.</translation>
    </message>
    <message>
        <source>Check that &apos;nvidia-smi&apos; works, then: restart if the driver was updated since the last start; load the unified-memory module if /dev/nvidia-uvm is missing (&apos;sudo modprobe nvidia_uvm&apos;, or run &apos;nvidia-smi&apos; once as root, which creates it); in a container, start it with GPU access (&apos;--gpus all&apos;). With 575-series drivers, some systems need &apos;options nvidia_uvm uvm_disable_hmm=1&apos; in a file under /etc/modprobe.d, then a restart.</source>
        <translation>Comprueba que &apos;nvidia-smi&apos; funciona y después: reinicia si el controlador se actualizó desde el último arranque; carga el módulo de memoria unificada si falta /dev/nvidia-uvm (&apos;sudo modprobe nvidia_uvm&apos;, o ejecuta &apos;nvidia-smi&apos; una vez como root, que lo crea); en un contenedor, inícialo con acceso a la GPU (&apos;--gpus all&apos;). Con controladores de la serie 575, algunos sistemas necesitan &apos;options nvidia_uvm uvm_disable_hmm=1&apos; en un archivo de /etc/modprobe.d y después un reinicio.</translation>
    </message>
    <message>
        <source>CUDA error 804 (forward compatibility was attempted on non supported HW): a CUDA forward-compatibility libcuda was loaded, but this GPU does not support it.</source>
        <translation>Error de CUDA 804 (forward compatibility was attempted on non supported HW): se cargó una libcuda de compatibilidad hacia adelante de CUDA, pero esta GPU no la admite.</translation>
    </message>
    <message>
        <source>CUDA error 804 (forward compatibility was attempted on non supported HW): a CUDA forward-compatibility libcuda was loaded (nvidia-smi shows driver {driver} with CUDA {driver_cuda}), but this GPU does not support it.</source>
        <translation>Error de CUDA 804 (forward compatibility was attempted on non supported HW): se cargó una libcuda de compatibilidad hacia adelante de CUDA (nvidia-smi muestra el controlador {driver} con CUDA {driver_cuda}), pero esta GPU no la admite.</translation>
    </message>
    <message>
        <source>Forward compatibility (the cuda-compat package, /usr/local/cuda/compat) works only on NVIDIA data-center GPUs, not on GeForce or most RTX cards. Remove the cuda-compat package from the host (&apos;sudo apt remove cuda-compat-*&apos;) and take /usr/local/cuda/compat out of LD_LIBRARY_PATH, so that driver {driver}&apos;s own libcuda is used; then install a framework build for the CUDA that driver supports, or update the NVIDIA driver to one made for CUDA {driver_cuda} or newer.</source>
        <translation>La compatibilidad hacia adelante (el paquete cuda-compat, /usr/local/cuda/compat) solo funciona en GPU de NVIDIA para centros de datos, no en tarjetas GeForce ni en la mayoría de las RTX. Elimina el paquete cuda-compat del host (&apos;sudo apt remove cuda-compat-*&apos;) y quita /usr/local/cuda/compat de LD_LIBRARY_PATH, para que se use la libcuda propia del controlador {driver}; después, instala una compilación del framework para la versión de CUDA que admite ese controlador, o actualiza el controlador de NVIDIA a uno hecho para CUDA {driver_cuda} o posterior.</translation>
    </message>
    <message>
        <source>The program asked for a GPU number this process does not have (&apos;invalid device ordinal&apos;).</source>
        <translation>El programa pidió un número de GPU que este proceso no tiene (&apos;invalid device ordinal&apos;).</translation>
    </message>
    <message>
        <source>GPUs are numbered from 0 among those the process can see, so with one GPU only &apos;cuda:0&apos; exists. Use &apos;cuda&apos; or &apos;cuda:0&apos; instead of &apos;cuda:1&apos; (or a setting such as --gpu 1 or device_ids=[0, 1]), or choose the GPU with CUDA_VISIBLE_DEVICES before starting the program (e.g. &apos;CUDA_VISIBLE_DEVICES=1 python train.py&apos;, then use &apos;cuda:0&apos;). &apos;nvidia-smi -L&apos; lists the GPUs this machine has.</source>
        <translation>Las GPU se numeran desde 0 entre las que el proceso puede ver, así que con una sola GPU solo existe &apos;cuda:0&apos;. Usa &apos;cuda&apos; o &apos;cuda:0&apos; en lugar de &apos;cuda:1&apos; (o de un ajuste como --gpu 1 o device_ids=[0, 1]), o elige la GPU con CUDA_VISIBLE_DEVICES antes de iniciar el programa (p. ej., &apos;CUDA_VISIBLE_DEVICES=1 python train.py&apos;, y luego usa &apos;cuda:0&apos;). &apos;nvidia-smi -L&apos; muestra las GPU que tiene esta máquina.</translation>
    </message>
    <message>
        <source>The program asked for a GPU number this process does not have (&apos;invalid device ordinal&apos;); the log sets CUDA_VISIBLE_DEVICES={visible}.</source>
        <translation>El programa pidió un número de GPU que este proceso no tiene (&apos;invalid device ordinal&apos;); el registro define CUDA_VISIBLE_DEVICES={visible}.</translation>
    </message>
    <message>
        <source>CUDA_VISIBLE_DEVICES={visible} leaves the process only the GPUs it lists, renumbered from 0: with one GPU listed, only &apos;cuda:0&apos; exists, whatever its number in nvidia-smi. Use &apos;cuda:0&apos; (or one process per listed GPU), or list every GPU the program needs (e.g. CUDA_VISIBLE_DEVICES=0,1). &apos;nvidia-smi -L&apos; lists the GPUs this machine has.</source>
        <translation>CUDA_VISIBLE_DEVICES={visible} deja al proceso solo las GPU que enumera, renumeradas desde 0: con una sola GPU en la lista, solo existe &apos;cuda:0&apos;, sea cual sea su número en nvidia-smi. Usa &apos;cuda:0&apos; (o un proceso por cada GPU de la lista), o incluye todas las GPU que necesita el programa (p. ej., CUDA_VISIBLE_DEVICES=0,1). &apos;nvidia-smi -L&apos; muestra las GPU que tiene esta máquina.</translation>
    </message>
    <message>
        <source>The launcher started {processes} processes per machine, one per GPU, but this process has fewer GPUs (&apos;invalid device ordinal&apos;).</source>
        <translation>El lanzador inició {processes} procesos por máquina, uno por GPU, pero este proceso tiene menos GPU (&apos;invalid device ordinal&apos;).</translation>
    </message>
    <message>
        <source>Each process takes the GPU numbered by its local rank, so --nproc-per-node must not exceed the number of GPUs visible (nvidia-smi -L lists them; CUDA_VISIBLE_DEVICES narrows them). Set --nproc-per-node to that number (1 for one GPU) or use &apos;--nproc-per-node=gpu&apos;. A model split over {processes} GPUs needs that many GPUs, or a version of it made for fewer.</source>
        <translation>Cada proceso toma la GPU con el número de su rango local, así que --nproc-per-node no debe superar el número de GPU visibles (nvidia-smi -L las muestra; CUDA_VISIBLE_DEVICES las restringe). Establece --nproc-per-node en ese número (1 para una GPU) o usa &apos;--nproc-per-node=gpu&apos;. Un modelo repartido entre {processes} GPU necesita esa cantidad de GPU, o una versión del modelo hecha para menos.</translation>
    </message>
    <message>
        <source>CUDA found no GPU this process may use (&apos;No CUDA GPUs are available&apos; or &apos;no CUDA-capable device is detected&apos;).</source>
        <translation>CUDA no encontró ninguna GPU que este proceso pueda usar (&apos;No CUDA GPUs are available&apos; o &apos;no CUDA-capable device is detected&apos;).</translation>
    </message>
    <message>
        <source>Most often CUDA_VISIBLE_DEVICES hides the GPUs: an empty value or -1 hides all of them, and an index this machine does not have (a script that sets os.environ[&apos;CUDA_VISIBLE_DEVICES&apos;] = &apos;3&apos; on a one-GPU machine) hides them too. Check &apos;echo $CUDA_VISIBLE_DEVICES&apos; and the script, and use an index or UUID from &apos;nvidia-smi -L&apos; (0 for the first GPU), or unset it. On a cluster, ask the job scheduler for a GPU (Slurm: --gpus=1 or --gres=gpu:1), which sets CUDA_VISIBLE_DEVICES for the job. If nvidia-smi itself lists no GPU, the driver is the problem; in a container, start it with GPU access (&apos;docker run --gpus all ...&apos;).</source>
        <translation>Lo más habitual es que CUDA_VISIBLE_DEVICES oculte las GPU: un valor vacío o -1 las oculta todas, y un índice que esta máquina no tiene (un script que define os.environ[&apos;CUDA_VISIBLE_DEVICES&apos;] = &apos;3&apos; en una máquina con una sola GPU) también las oculta. Comprueba &apos;echo $CUDA_VISIBLE_DEVICES&apos; y el script, y usa un índice o UUID de &apos;nvidia-smi -L&apos; (0 para la primera GPU), o elimina la variable. En un clúster, solicita una GPU al planificador de trabajos (Slurm: --gpus=1 o --gres=gpu:1), que define CUDA_VISIBLE_DEVICES para el trabajo. Si el propio nvidia-smi no muestra ninguna GPU, el problema es el controlador; en un contenedor, inícialo con acceso a la GPU (&apos;docker run --gpus all ...&apos;).</translation>
    </message>
    <message>
        <source>CUDA found no GPU: CUDA_VISIBLE_DEVICES is set to &apos;{visible}&apos;, which hides every GPU.</source>
        <translation>CUDA no encontró ninguna GPU: CUDA_VISIBLE_DEVICES tiene el valor &apos;{visible}&apos;, que oculta todas las GPU.</translation>
    </message>
    <message>
        <source>An empty CUDA_VISIBLE_DEVICES or -1 is the usual way to force the CPU. To use the GPU, unset it (&apos;unset CUDA_VISIBLE_DEVICES&apos;, or remove the line that sets it in the script or the job file) or set it to a GPU from &apos;nvidia-smi -L&apos;, such as CUDA_VISIBLE_DEVICES=0, before the program starts.</source>
        <translation>Un CUDA_VISIBLE_DEVICES vacío o -1 es la forma habitual de forzar el uso de la CPU. Para usar la GPU, elimina la variable (&apos;unset CUDA_VISIBLE_DEVICES&apos;, o quita la línea que la define en el script o en el archivo del trabajo) o asígnale una GPU de &apos;nvidia-smi -L&apos;, como CUDA_VISIBLE_DEVICES=0, antes de que se inicie el programa.</translation>
    </message>
    <message>
        <source>CUDA found no GPU this process may use; the log sets CUDA_VISIBLE_DEVICES={visible}.</source>
        <translation>CUDA no encontró ninguna GPU que este proceso pueda usar; el registro define CUDA_VISIBLE_DEVICES={visible}.</translation>
    </message>
    <message>
        <source>CUDA_VISIBLE_DEVICES={visible} must name GPUs this machine has: indexes from &apos;nvidia-smi -L&apos; (0 for the first GPU; CUDA counts the fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID) or their UUIDs (GPU-...). An entry that does not exist hides it and everything after it. Set it to an existing GPU, e.g. CUDA_VISIBLE_DEVICES=0 on a one-GPU machine, or unset it.</source>
        <translation>CUDA_VISIBLE_DEVICES={visible} debe indicar GPU que esta máquina tenga: índices de &apos;nvidia-smi -L&apos; (0 para la primera GPU; CUDA cuenta primero la más rápida salvo que CUDA_DEVICE_ORDER=PCI_BUS_ID) o sus UUID (GPU-...). Una entrada que no existe oculta esa GPU y todas las que la siguen. Asígnale una GPU existente, p. ej., CUDA_VISIBLE_DEVICES=0 en una máquina con una sola GPU, o elimina la variable.</translation>
    </message>
    <message>
        <source>PyTorch counted more GPUs than CUDA lets this process use (&apos;device &gt;= 0 &amp;&amp; device &lt; num_gpus INTERNAL ASSERT FAILED&apos;); usually the GPUs are MIG instances.</source>
        <translation>PyTorch contó más GPU de las que CUDA permite usar a este proceso (&apos;device &gt;= 0 &amp;&amp; device &lt; num_gpus INTERNAL ASSERT FAILED&apos;); normalmente las GPU son instancias MIG.</translation>
    </message>
    <message>
        <source>On an A100, H100 or H200 in MIG mode a process can use one MIG instance only, and it is always device 0. Before starting Python, choose the instance: &apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt; python ...&apos; with a UUID from &apos;nvidia-smi -L&apos; (the job scheduler may set it for you), and use &apos;cuda&apos; or &apos;cuda:0&apos;. Do not set CUDA_VISIBLE_DEVICES inside the script after torch has started. Without MIG, check that CUDA_VISIBLE_DEVICES names only GPUs from &apos;nvidia-smi -L&apos;.</source>
        <translation>En una A100, H100 o H200 en modo MIG, un proceso solo puede usar una instancia MIG, y siempre es el dispositivo 0. Antes de iniciar Python, elige la instancia: &apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt; python ...&apos; con un UUID de &apos;nvidia-smi -L&apos; (puede que el planificador de trabajos ya la defina), y usa &apos;cuda&apos; o &apos;cuda:0&apos;. No definas CUDA_VISIBLE_DEVICES dentro del script después de que torch se haya iniciado. Sin MIG, comprueba que CUDA_VISIBLE_DEVICES solo indica GPU de &apos;nvidia-smi -L&apos;.</translation>
    </message>
    <message>
        <source>The GPUs are MIG instances, and this process asked for more than the one MIG instance a CUDA process can use.</source>
        <translation>Las GPU son instancias MIG, y este proceso pidió más de la única instancia MIG que puede usar un proceso CUDA.</translation>
    </message>
    <message>
        <source>A CUDA process sees one MIG instance only, always as device 0 (&apos;cuda:0&apos;), however many instances exist or the container was given. Run one process per instance, each started with &apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt;&apos; (the UUIDs are listed by &apos;nvidia-smi -L&apos;; with drivers before R470 the form is MIG-GPU-&lt;UUID&gt;/&lt;GI&gt;/&lt;CI&gt;), and use &apos;cuda:0&apos; inside it. Training over several MIG instances (torchrun, DDP, NCCL) does not work: use whole GPUs, which the administrator gets back by disabling MIG (&apos;sudo nvidia-smi -i 0 -mig 0&apos; with no process on the GPU).</source>
        <translation>Un proceso CUDA solo ve una instancia MIG, siempre como dispositivo 0 (&apos;cuda:0&apos;), independientemente de cuántas instancias existan o se hayan asignado al contenedor. Ejecuta un proceso por instancia, cada uno iniciado con &apos;CUDA_VISIBLE_DEVICES=MIG-&lt;UUID&gt;&apos; (los UUID se obtienen con &apos;nvidia-smi -L&apos;; con controladores anteriores a R470 el formato es MIG-GPU-&lt;UUID&gt;/&lt;GI&gt;/&lt;CI&gt;), y usa &apos;cuda:0&apos; dentro de él. El entrenamiento en varias instancias MIG (torchrun, DDP, NCCL) no funciona: usa GPU completas, que el administrador recupera desactivando MIG (&apos;sudo nvidia-smi -i 0 -mig 0&apos; sin ningún proceso en la GPU).</translation>
    </message>
    <message>
        <source>The MIG mode change is not applied: the GPU could not be reset because other programs still use it (&apos;In use by another client&apos;).</source>
        <translation>El cambio de modo MIG no se ha aplicado: no se pudo reiniciar la GPU porque otros programas todavía la usan (&apos;In use by another client&apos;).</translation>
    </message>
    <message>
        <source>A MIG mode change takes effect when the GPU is reset, and the reset needs every program off the GPU. Stop what &apos;nvidia-smi&apos; lists, and the services that keep the GPU open: nvidia-persistenced, DCGM or dcgm-exporter, nvidia-fabricmanager, a desktop or X server; unload the display module (&apos;sudo rmmod nvidia_drm&apos;, load it again afterwards). Then reset the GPU (&apos;sudo nvidia-smi --gpu-reset -i 0&apos;) or apply the MIG configuration again, or simply restart the computer, which applies the pending mode. In a virtual machine whose hypervisor forbids a reset, restart the VM.</source>
        <translation>Un cambio de modo MIG surte efecto cuando se reinicia la GPU, y para reiniciarla ningún programa debe estar usándola. Detén lo que muestre &apos;nvidia-smi&apos; y los servicios que mantienen abierta la GPU: nvidia-persistenced, DCGM o dcgm-exporter, nvidia-fabricmanager, un escritorio o un servidor X; descarga el módulo de pantalla (&apos;sudo rmmod nvidia_drm&apos;, y vuelve a cargarlo después). Luego reinicia la GPU (&apos;sudo nvidia-smi --gpu-reset -i 0&apos;) o vuelve a aplicar la configuración MIG, o simplemente reinicia el equipo, lo que aplica el modo pendiente. En una máquina virtual cuyo hipervisor no permita el reinicio de la GPU, reinicia la VM.</translation>
    </message>
    <message>
        <source>CUDA could not open the GPU: it is busy or unavailable to this process (&apos;CUDA-capable device(s) is/are busy or unavailable&apos;).</source>
        <translation>CUDA no pudo abrir la GPU: está ocupada o no está disponible para este proceso (&apos;CUDA-capable device(s) is/are busy or unavailable&apos;).</translation>
    </message>
    <message>
        <source>Another process may hold a GPU set to exclusive use: &apos;nvidia-smi&apos; lists the processes and, under &apos;Compute M.&apos;, the mode (&apos;E. Process&apos; lets one process at a time use the GPU). Stop that process (or a stuck earlier run of yours), or choose a free GPU with CUDA_VISIBLE_DEVICES. On a shared server or cluster, ask for the GPU through the job scheduler; an administrator can allow sharing with &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos;. If no process uses the GPU, restart the computer (a virtual GPU may also need its licence).</source>
        <translation>Es posible que otro proceso ocupe una GPU configurada para uso exclusivo: &apos;nvidia-smi&apos; muestra los procesos y, en &apos;Compute M.&apos;, el modo (&apos;E. Process&apos; permite que un solo proceso a la vez use la GPU). Detén ese proceso (o una ejecución anterior tuya que se haya quedado bloqueada), o elige una GPU libre con CUDA_VISIBLE_DEVICES. En un servidor compartido o un clúster, solicita la GPU a través del planificador de trabajos; un administrador puede permitir el uso compartido con &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos;. Si ningún proceso usa la GPU, reinicia el equipo (una GPU virtual también puede necesitar su licencia).</translation>
    </message>
    <message>
        <source>CUDA could not open the GPU: it is in an exclusive compute mode (&apos;E. Process&apos;) and another process already uses it.</source>
        <translation>CUDA no pudo abrir la GPU: está en un modo de cómputo exclusivo (&apos;E. Process&apos;) y otro proceso ya la usa.</translation>
    </message>
    <message>
        <source>In exclusive-process mode only one process at a time may use the GPU. &apos;nvidia-smi&apos; lists the process that holds it: wait for it or stop it, or choose another GPU with CUDA_VISIBLE_DEVICES (use a GPU whose &apos;Compute M.&apos; is &apos;Default&apos; or that has no process). An administrator can allow sharing with &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos;; on a cluster the exclusive mode is usually intended, so ask the job scheduler for a GPU.</source>
        <translation>En el modo de proceso exclusivo, solo un proceso a la vez puede usar la GPU. &apos;nvidia-smi&apos; muestra el proceso que la ocupa: espera a que termine o detenlo, o elige otra GPU con CUDA_VISIBLE_DEVICES (usa una GPU cuyo &apos;Compute M.&apos; sea &apos;Default&apos; o que no tenga ningún proceso). Un administrador puede permitir el uso compartido con &apos;sudo nvidia-smi -i 0 -c DEFAULT&apos;; en un clúster, el modo exclusivo suele ser intencionado, así que solicita una GPU al planificador de trabajos.</translation>
    </message>
    <message>
        <source>A process forked after CUDA had started tried to use the GPU (&apos;Cannot re-initialize CUDA in forked subprocess&apos;).</source>
        <translation>Un proceso creado con fork después de que CUDA se hubiera iniciado intentó usar la GPU (&apos;Cannot re-initialize CUDA in forked subprocess&apos;).</translation>
    </message>
    <message>
        <source>CUDA cannot be used in a process created by fork (the default start method on Linux) once the parent has used it. Start worker processes with &apos;spawn&apos;: call &apos;torch.multiprocessing.set_start_method(&quot;spawn&quot;, force=True)&apos; at the start of the &apos;if __name__ == &quot;__main__&quot;:&apos; block, or use &apos;multiprocessing.get_context(&quot;spawn&quot;)&apos;; for a DataLoader, pass multiprocessing_context=&quot;spawn&quot; or keep GPU work out of the Dataset (move tensors to the GPU in the training loop), or set num_workers=0. Or do not touch CUDA in the parent before the workers start.</source>
        <translation>CUDA no se puede usar en un proceso creado con fork (el método de inicio predeterminado en Linux) una vez que el proceso padre la ha usado. Inicia los procesos de trabajo con &apos;spawn&apos;: llama a &apos;torch.multiprocessing.set_start_method(&quot;spawn&quot;, force=True)&apos; al principio del bloque &apos;if __name__ == &quot;__main__&quot;:&apos;, o usa &apos;multiprocessing.get_context(&quot;spawn&quot;)&apos;; para un DataLoader, pasa multiprocessing_context=&quot;spawn&quot; o mantén el trabajo de GPU fuera del Dataset (mueve los tensores a la GPU en el bucle de entrenamiento), o establece num_workers=0. O no uses CUDA en el proceso padre antes de que se inicien los procesos de trabajo.</translation>
    </message>
    <message>
        <source>Check, in this order: install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe and restart; check that the CPU supports AVX (TensorFlow&apos;s packages need it since 1.6); check that Python is 64-bit (&apos;python -c &quot;import struct; print(struct.calcsize(&apos;P&apos;) * 8)&quot;&apos; prints 64) and a version the TensorFlow release supports; for tensorflow-gpu 2.10 or older, put the CUDA and cuDNN DLLs of its release on PATH. Then reinstall tensorflow in a fresh virtual environment.</source>
        <translation>Comprueba, en este orden: instala la versión más reciente de Microsoft Visual C++ Redistributable (x64) desde https://aka.ms/vs/17/release/vc_redist.x64.exe y reinicia; comprueba que la CPU admite AVX (los paquetes de TensorFlow lo necesitan desde la versión 1.6); comprueba que Python es de 64 bits (&apos;python -c &quot;import struct; print(struct.calcsize(&apos;P&apos;) * 8)&quot;&apos; muestra 64) y de una versión compatible con tu versión de TensorFlow; para tensorflow-gpu 2.10 o anterior, pon en PATH las DLL de CUDA y cuDNN de su versión. Luego reinstala tensorflow en un entorno virtual nuevo.</translation>
    </message>
    <message>
        <source>{package} has no installable version for Python {python}: no wheels for this Python.</source>
        <translation>{package} no tiene ninguna versión instalable para Python {python}: no hay wheels para este Python.</translation>
    </message>
    <message>
        <source>Frameworks publish wheels for a range of Python versions per release, and Python {python} is outside it. Create the environment with a Python the release supports: Python 3.12 works with every PyTorch from 2.2 and TensorFlow 2.16 to 2.21 (TensorFlow 2.20 and newer also support 3.13, PyTorch 2.9 and newer 3.14), e.g. &apos;uv venv --python 3.12&apos; or &apos;conda create -n ENV python=3.12&apos;. For an old pinned release, use the older Python it was built for, or a newer release of {package} that supports Python {python}. The wizard&apos;s Choose page picks a Python and a build that exist together.</source>
        <translation>Los frameworks publican, en cada versión, wheels para un rango de versiones de Python, y Python {python} está fuera de ese rango. Crea el entorno con un Python compatible con esa versión: Python 3.12 funciona con todas las versiones de PyTorch desde la 2.2 y con TensorFlow de la 2.16 a la 2.21 (TensorFlow 2.20 y posteriores también admiten 3.13, y PyTorch 2.9 y posteriores, 3.14); por ejemplo, &apos;uv venv --python 3.12&apos; o &apos;conda create -n ENV python=3.12&apos;. Para una versión antigua fijada, usa el Python más antiguo para el que se compiló, o una versión más reciente de {package} que admita Python {python}. La página Elegir del asistente elige un Python y una compilación que existan juntos.</translation>
    </message>
    <message>
        <source>{package} has wheels for Python {available} only, not for Python {python}.</source>
        <translation>{package} tiene wheels solo para Python {available}, no para Python {python}.</translation>
    </message>
    <message>
        <source>Create the environment with Python {suggested}, the newest of those: &apos;uv venv --python {suggested}&apos; (uv downloads it if needed) or &apos;conda create -n ENV python={suggested}&apos;, then install again. Or choose a newer release of {package} that has wheels for Python {python}; the wizard&apos;s Choose page picks a Python and a build that exist together.</source>
        <translation>Crea el entorno con Python {suggested}, la más reciente de esas versiones: &apos;uv venv --python {suggested}&apos; (uv lo descarga si hace falta) o &apos;conda create -n ENV python={suggested}&apos;, y vuelve a instalar. O elige una versión más reciente de {package} que tenga wheels para Python {python}; la página Elegir del asistente elige un Python y una compilación que existan juntos.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded on Windows (&apos;DLL load failed&apos;); the log does not say which cause.</source>
        <translation>No se pudo cargar la biblioteca nativa de TensorFlow en Windows (&apos;DLL load failed&apos;); el registro no indica la causa.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library failed to initialise (Windows error 1114, &apos;DLL initialization routine failed&apos;): most likely this CPU lacks the AVX instructions TensorFlow&apos;s packages need.</source>
        <translation>La biblioteca nativa de TensorFlow no pudo inicializarse (error 1114 de Windows, &apos;DLL initialization routine failed&apos;): lo más probable es que esta CPU no tenga las instrucciones AVX que necesitan los paquetes de TensorFlow.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s official packages use AVX since release 1.6. Check the CPU: look its model up on the maker&apos;s site (Settings &gt; System &gt; About names it), or run Microsoft&apos;s Coreinfo, which marks AVX with &apos;*&apos; when the CPU has it. Without AVX, these packages cannot run here: use another machine or a hosted notebook (Colab), or a build made without AVX. With AVX, the other cause of this error is an old Visual C++ runtime: install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe, restart, and reinstall tensorflow in a fresh virtual environment.</source>
        <translation>Los paquetes oficiales de TensorFlow usan AVX desde la versión 1.6. Comprueba la CPU: busca su modelo en el sitio web del fabricante (Configuración &gt; Sistema &gt; Información indica cuál es), o ejecuta Coreinfo de Microsoft, que marca AVX con &apos;*&apos; cuando la CPU lo admite. Sin AVX, estos paquetes no pueden ejecutarse aquí: usa otra máquina o un notebook alojado (Colab), o una compilación hecha sin AVX. Con AVX, la otra causa de este error es un runtime de Visual C++ antiguo: instala la versión más reciente de Microsoft Visual C++ Redistributable (x64) desde https://aka.ms/vs/17/release/vc_redist.x64.exe, reinicia y reinstala tensorflow en un entorno virtual nuevo.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded: a DLL it needs was not found (Windows error 126), most often the Microsoft Visual C++ runtime.</source>
        <translation>No se pudo cargar la biblioteca nativa de TensorFlow: no se encontró una DLL que necesita (error 126 de Windows), normalmente el runtime de Microsoft Visual C++.</translation>
    </message>
    <message>
        <source>Install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe and restart: TensorFlow&apos;s Windows packages since 2.1 need its msvcp140_1.dll. If the error stays: check that Python is 64-bit and a version the TensorFlow release supports, and for tensorflow-gpu 2.10 or older that the CUDA and cuDNN DLLs of its release are on PATH; then reinstall tensorflow in a fresh virtual environment.</source>
        <translation>Instala la versión más reciente de Microsoft Visual C++ Redistributable (x64) desde https://aka.ms/vs/17/release/vc_redist.x64.exe y reinicia: los paquetes de TensorFlow para Windows necesitan su msvcp140_1.dll desde la versión 2.1. Si el error persiste, comprueba que Python es de 64 bits y de una versión compatible con tu versión de TensorFlow y, para tensorflow-gpu 2.10 o anterior, que las DLL de CUDA y cuDNN de su versión están en PATH; luego reinstala tensorflow en un entorno virtual nuevo.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s GPU build could not be loaded: it needs {library}, a CUDA library of one CUDA release, and Windows did not find it.</source>
        <translation>No se pudo cargar la compilación para GPU de TensorFlow: necesita {library}, una biblioteca de una versión concreta de CUDA, y Windows no la encontró.</translation>
    </message>
    <message>
        <source>TensorFlow 2.0 and older GPU builds load the exact CUDA and cuDNN release they were built for; the file name tells which (cudart64_100.dll is CUDA 10.0, cudart64_90.dll CUDA 9.0, cudnn64_7.dll cuDNN 7). Install that CUDA and cuDNN and put their bin folders on PATH; a renamed DLL of another release does not work. Better, use a current TensorFlow: the last GPU release for native Windows is 2.10 (CUDA 11.2, cuDNN 8.1), and newer releases use the GPU through WSL 2.</source>
        <translation>Las compilaciones para GPU de TensorFlow 2.0 y anteriores cargan exactamente la versión de CUDA y cuDNN para la que se compilaron; el nombre del archivo indica cuál (cudart64_100.dll es CUDA 10.0; cudart64_90.dll, CUDA 9.0; cudnn64_7.dll, cuDNN 7). Instala esa versión de CUDA y cuDNN y pon sus carpetas bin en PATH; una DLL de otra versión con el nombre cambiado no funciona. Mejor aún, usa una versión actual de TensorFlow: la última versión con GPU para Windows nativo es la 2.10 (CUDA 11.2, cuDNN 8.1), y las versiones más recientes usan la GPU a través de WSL 2.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded, and the log shows a 32-bit Python: TensorFlow is built for 64-bit Python only.</source>
        <translation>No se pudo cargar la biblioteca nativa de TensorFlow, y el registro muestra un Python de 32 bits: TensorFlow solo se compila para Python de 64 bits.</translation>
    </message>
    <message>
        <source>Install a 64-bit Python from python.org (&apos;Windows installer (64-bit)&apos;) in the range your TensorFlow release supports (Python 3.12 for TensorFlow 2.16 to 2.21), create a fresh virtual environment with it and install tensorflow there.</source>
        <translation>Instala un Python de 64 bits desde python.org (&apos;Windows installer (64-bit)&apos;) dentro del rango que admite tu versión de TensorFlow (Python 3.12 para TensorFlow 2.16 a 2.21), crea con él un entorno virtual nuevo e instala tensorflow en él.</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s native library could not be loaded, and the log shows the Microsoft Store build of Python.</source>
        <translation>No se pudo cargar la biblioteca nativa de TensorFlow, y el registro muestra la compilación de Python de Microsoft Store.</translation>
    </message>
    <message>
        <source>The Store build runs in a sandbox that redirects its package folders, and loading TensorFlow&apos;s DLLs from there is known to fail (TensorFlow issues #48868, #61438). Install Python from python.org (64-bit), create a fresh virtual environment with it and install tensorflow there; install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe too.</source>
        <translation>La compilación de Microsoft Store se ejecuta en un entorno aislado (sandbox) que redirige sus carpetas de paquetes, y se sabe que la carga de las DLL de TensorFlow desde ahí falla (issues de TensorFlow #48868, #61438). Instala Python desde python.org (64 bits), crea con él un entorno virtual nuevo e instala tensorflow en él; instala también la versión más reciente de Microsoft Visual C++ Redistributable (x64) desde https://aka.ms/vs/17/release/vc_redist.x64.exe.</translation>
    </message>
    <message>
        <source>JAX is installed without CUDA support, so it runs on the CPU although an NVIDIA GPU may be present (&apos;a CUDA-enabled jaxlib is not installed&apos;).</source>
        <translation>JAX está instalado sin compatibilidad con CUDA, por lo que se ejecuta en la CPU aunque haya una GPU NVIDIA (&apos;a CUDA-enabled jaxlib is not installed&apos;).</translation>
    </message>
    <message>
        <source>A compiled module could not be imported: it was built against {components} and needs {libraries}, which is not on this machine&apos;s library path.</source>
        <translation>No se pudo importar un módulo compilado: se compiló contra {components} y necesita {libraries}, que no está en la ruta de bibliotecas de esta máquina.</translation>
    </message>
    <message>
        <source>Framework wheels bring their own CUDA libraries, so a module that looks for {libraries} on the system was built for {components}. Find the package whose import failed (the last &apos;File&apos; lines of the traceback name it: mmcv, detectron2, a custom CUDA operator) and install its build for the CUDA your framework uses (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; shows it): from the package&apos;s index for that CUDA and torch, or built again from source against them. Only where no such build exists, install {components} and add its lib64 folder to LD_LIBRARY_PATH.</source>
        <translation>Los wheels de los frameworks traen sus propias bibliotecas de CUDA, así que un módulo que busca {libraries} en el sistema se compiló para {components}. Localiza el paquete cuya importación falló (las últimas líneas &apos;File&apos; del traceback lo nombran: mmcv, detectron2, un operador CUDA propio) e instala su versión para la CUDA que usa tu framework (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; la muestra): desde el índice del paquete para esa CUDA y ese torch, o compilándolo de nuevo desde el código fuente contra ellos. Solo si no existe esa versión, instala {components} y añade su carpeta lib64 a LD_LIBRARY_PATH.</translation>
    </message>
    <message>
        <source>{package} could not be imported: its compiled part was built against {components} and needs {libraries}, which is not on this machine&apos;s library path.</source>
        <translation>No se pudo importar {package}: su parte compilada se compiló contra {components} y necesita {libraries}, que no está en la ruta de bibliotecas de esta máquina.</translation>
    </message>
    <message>
        <source>Framework wheels bring their own CUDA libraries, so a module that looks for {libraries} on the system was built for {components}. Install the {package} build made for the CUDA and torch your environment uses (&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda)&quot;&apos; shows them): from its project&apos;s index for that CUDA and torch (OpenMMLab: &apos;mim install mmcv&apos;), or built again from source against them (&apos;pip uninstall {package}&apos; first). Only where no such build exists, install {components} and add its lib64 folder to LD_LIBRARY_PATH.</source>
        <translation>Los wheels de los frameworks traen sus propias bibliotecas de CUDA, así que un módulo que busca {libraries} en el sistema se compiló para {components}. Instala la versión de {package} hecha para la CUDA y el torch que usa tu entorno (&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda)&quot;&apos; los muestra): desde el índice de su proyecto para esa CUDA y ese torch (OpenMMLab: &apos;mim install mmcv&apos;), o compilándolo de nuevo desde el código fuente contra ellos (antes, &apos;pip uninstall {package}&apos;). Solo si no existe esa versión, instala {components} y añade su carpeta lib64 a LD_LIBRARY_PATH.</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver from https://www.nvidia.com/Download/index.aspx and restart, or install a framework build for an older CUDA. In a container, the host&apos;s driver is the one that counts: where &apos;nvidia-smi&apos; on the host shows a driver new enough, the container was given an older driver&apos;s libraries; after a driver update, regenerate the device list (&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos;) and restart the container.</source>
        <translation>Actualiza el controlador de NVIDIA desde https://www.nvidia.com/Download/index.aspx y reinicia, o instala una versión del framework para un CUDA más antiguo. En un contenedor, lo que cuenta es el controlador del host. Si &apos;nvidia-smi&apos; en el host muestra un controlador lo bastante reciente, el contenedor recibió las bibliotecas de un controlador anterior: tras actualizar el controlador, vuelve a generar la lista de dispositivos (&apos;sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml&apos;) y reinicia el contenedor.</translation>
    </message>
    <message>
        <source>Reinstall the NVIDIA driver from https://www.nvidia.com/Download/index.aspx (on Ubuntu: &apos;sudo ubuntu-drivers install&apos;), restart the computer, and run {verify} again. An interrupted driver update, or a Linux kernel update without the driver&apos;s module, leaves this state.</source>
        <translation>Reinstale el controlador de NVIDIA desde https://www.nvidia.com/Download/index.aspx (en Ubuntu: &apos;sudo ubuntu-drivers install&apos;), reinicie el equipo y vuelva a ejecutar {verify}. Una actualización del controlador interrumpida, o una actualización del núcleo de Linux sin el módulo del controlador, deja este estado.</translation>
    </message>
    <message>
        <source>Install driver {min_driver} or newer from https://www.nvidia.com/Download/index.aspx and restart; or recreate the environment, which chooses a build this driver runs: {recreate}</source>
        <translation>Instale el controlador {min_driver} o más reciente desde https://www.nvidia.com/Download/index.aspx y reinicie; o vuelva a crear el entorno, que elige una compilación que este controlador ejecuta: {recreate}</translation>
    </message>
    <message>
        <source>Run &apos;nvidia-smi&apos;: a GPU that fell off the bus (&apos;GPU is lost&apos;, Xid 79) needs a restart; check its power cables and seating; in a VM or container, check that the GPU is still passed through. Then run {verify} again.</source>
        <translation>Ejecute &apos;nvidia-smi&apos;: una GPU que se cayó del bus (&apos;GPU is lost&apos;, Xid 79) necesita un reinicio; revise sus cables de alimentación y su conexión; en una máquina virtual o un contenedor, compruebe que la GPU sigue asignada. Después vuelva a ejecutar {verify}.</translation>
    </message>
    <message>
        <source>Nothing to do while the live test passes; a GPU of a newer generation may need a newer framework build, which {recommend} names.</source>
        <translation>No hay nada que hacer mientras la prueba en vivo pase; una GPU de una generación más nueva puede necesitar una compilación más nueva del framework, que {recommend} indica.</translation>
    </message>
    <message>
        <source>Check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides GPUs), that &apos;nvidia-smi&apos; lists every GPU, and that the driver is new enough for the build; then run {verify} again.</source>
        <translation>Revise CUDA_VISIBLE_DEVICES (un valor vacío o un índice equivocado ocultan GPU), que &apos;nvidia-smi&apos; liste todas las GPU y que el controlador sea lo bastante nuevo para la compilación; después vuelva a ejecutar {verify}.</translation>
    </message>
    <message>
        <source>The test says: {reason} Fix that (the other checks above may name the cause), then run {test} for the full test.</source>
        <translation>La prueba dice: {reason} Corríjalo (las otras comprobaciones de arriba pueden indicar la causa) y ejecute {test} para la prueba completa.</translation>
    </message>
    <message>
        <source>The test says: {reason} Fix that, then run {test} for the full test; once it passes, it is recorded as the last good state.</source>
        <translation>La prueba dice: {reason} Corríjalo y ejecute {test} para la prueba completa; cuando pase, se registrará como el último estado bueno.</translation>
    </message>
    <message>
        <source>Another program may be using the GPU, or it is throttling from heat or power saving: check &apos;nvidia-smi&apos; and run {test} for the full measurement.</source>
        <translation>Puede que otro programa esté usando la GPU, o que se esté limitando por calor o ahorro de energía: revise &apos;nvidia-smi&apos; y ejecute {test} para la medición completa.</translation>
    </message>
    <message>
        <source>An installer or another tool rewrote PATH. Add it back: {command}  ({history} shows what the wizard changed.)</source>
        <translation>Un instalador u otra herramienta reescribió PATH. Vuelva a añadirla: {command}  ({history} muestra lo que cambió el asistente.)</translation>
    </message>
    <message>
        <source>Install it from PyPI instead of PyTorch&apos;s index: {command}</source>
        <translation>Instálala desde PyPI en lugar del índice de PyTorch: {command}</translation>
    </message>
    <message>
        <source>WSL 2 gets the GPU from the Windows NVIDIA driver; its nvidia-smi is /usr/lib/wsl/lib/nvidia-smi. Check with &apos;which nvidia-smi&apos; and &apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos;; remove those packages (for example &apos;sudo apt remove --purge nvidia-driver-550 nvidia-utils-550&apos;), keeping nvidia-container-toolkit, then run &apos;wsl --shutdown&apos; in Windows and open WSL again. Take the CUDA toolkit from NVIDIA&apos;s WSL-Ubuntu repository, or from the Ubuntu one only as &apos;cuda-toolkit-12-x&apos; (not &apos;cuda&apos; or &apos;cuda-drivers&apos;, which bring a Linux driver). If nothing was installed, update the NVIDIA driver on Windows; data-center GPUs in TCC mode are not available to WSL. If WSL was opened from a terminal run as administrator, open it from a normal one: people found the GPU unreachable only there (microsoft/WSL#9099, #9640).</source>
        <translation>WSL 2 obtiene la GPU del controlador de NVIDIA para Windows; su nvidia-smi es /usr/lib/wsl/lib/nvidia-smi. Compruébalo con &apos;which nvidia-smi&apos; y &apos;dpkg -l | grep -E &quot;nvidia-(driver|utils)|libnvidia-compute&quot;&apos;; elimina esos paquetes (por ejemplo, &apos;sudo apt remove --purge nvidia-driver-550 nvidia-utils-550&apos;), conservando nvidia-container-toolkit, y luego ejecuta &apos;wsl --shutdown&apos; en Windows y vuelve a abrir WSL. Obtén el CUDA toolkit del repositorio WSL-Ubuntu de NVIDIA, o del de Ubuntu solo como &apos;cuda-toolkit-12-x&apos; (no &apos;cuda&apos; ni &apos;cuda-drivers&apos;, que instalan un controlador para Linux). Si no se instaló nada, actualiza el controlador de NVIDIA en Windows; las GPU para centros de datos en modo TCC no están disponibles para WSL. Si abriste WSL desde un terminal ejecutado como administrador, ábrelo desde uno normal: hay quien encontró la GPU inalcanzable solo allí (microsoft/WSL#9099, #9640).</translation>
    </message>
    <message>
        <source>A plain &apos;pip install jax&apos; is the CPU build. Install the CUDA build into this environment: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; (&apos;jax[cuda13]&apos; instead when nvidia-smi shows CUDA 13.0 or newer); it brings the CUDA plugin and NVIDIA&apos;s CUDA and cuDNN wheels. JAX supports NVIDIA GPUs on Linux and (experimentally) in WSL 2, not on native Windows. Then check: python -c &quot;import jax; print(jax.devices())&quot; must list a CudaDevice.</source>
        <translation>Un simple &apos;pip install jax&apos; instala la compilación para CPU. Instala la compilación con CUDA en este entorno: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; (&apos;jax[cuda13]&apos; en su lugar cuando nvidia-smi muestre CUDA 13.0 o posterior); incluye el plugin de CUDA y los wheels de CUDA y cuDNN de NVIDIA. JAX admite GPU NVIDIA en Linux y (de forma experimental) en WSL 2, no en Windows nativo. Luego compruébalo: python -c &quot;import jax; print(jax.devices())&quot; debe mostrar un CudaDevice.</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA backend failed to start, so JAX cannot use the GPU (it runs on the CPU).</source>
        <translation>El backend de CUDA de JAX no pudo iniciarse, por lo que JAX no puede usar la GPU (se ejecuta en la CPU).</translation>
    </message>
    <message>
        <source>The line after &apos;CUDA backend failed to initialize&apos; says why. Reinstall JAX with its CUDA wheels in one command, so that jax, jaxlib, the CUDA plugin and NVIDIA&apos;s libraries match: &apos;pip install -U &quot;jax[cuda12]&quot;&apos;. Unset LD_LIBRARY_PATH for this environment: JAX&apos;s install guide warns that it overrides the CUDA libraries of the wheels. If PyTorch or TensorFlow in the same environment pins other NVIDIA wheels, give JAX its own environment.</source>
        <translation>La línea que sigue a &apos;CUDA backend failed to initialize&apos; indica el motivo. Reinstala JAX con sus wheels de CUDA en un solo comando, para que jax, jaxlib, el plugin de CUDA y las bibliotecas de NVIDIA coincidan: &apos;pip install -U &quot;jax[cuda12]&quot;&apos;. Elimina la variable LD_LIBRARY_PATH para este entorno: la guía de instalación de JAX advierte que reemplaza las bibliotecas de CUDA de los wheels. Si PyTorch o TensorFlow fijan otros wheels de NVIDIA en el mismo entorno, usa un entorno propio para JAX.</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA backend did not start: this JAX needs cuDNN {built} or newer, but found cuDNN {found}. JAX runs on the CPU.</source>
        <translation>El backend de CUDA de JAX no se inició: este JAX necesita cuDNN {built} o posterior, pero encontró cuDNN {found}. JAX se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>JAX loads the first cuDNN on the library search path. With &apos;jax[cuda12]&apos; the right one is the nvidia-cudnn-cu12 wheel: upgrade it (&apos;pip install -U &quot;jax[cuda12]&quot;&apos;, or &apos;pip install -U &quot;nvidia-cudnn-cu12&gt;={built}&quot;&apos;), and unset LD_LIBRARY_PATH (or remove the system or conda cuDNN folder from it) so that the wheel&apos;s copy is found first. If PyTorch in the same environment pins an older nvidia-cudnn-cu12, keep JAX and PyTorch in separate environments, or choose releases that agree on cuDNN. With a local CUDA (&apos;jax[cuda12_local]&apos;, conda), install cuDNN {built} or newer.</source>
        <translation>JAX carga el primer cuDNN que encuentra en la ruta de búsqueda de bibliotecas. Con &apos;jax[cuda12]&apos;, el correcto es el wheel nvidia-cudnn-cu12: actualízalo (&apos;pip install -U &quot;jax[cuda12]&quot;&apos; o &apos;pip install -U &quot;nvidia-cudnn-cu12&gt;={built}&quot;&apos;) y elimina la variable LD_LIBRARY_PATH (o quita de ella la carpeta de cuDNN del sistema o de conda) para que se encuentre primero la copia del wheel. Si PyTorch fija un nvidia-cudnn-cu12 más antiguo en el mismo entorno, mantén JAX y PyTorch en entornos separados, o elige versiones que coincidan en cuDNN. Con un CUDA local (&apos;jax[cuda12_local]&apos;, conda), instala cuDNN {built} o posterior.</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA backend did not start: this JAX needs {component} {built} or newer, but found {component} {found}. JAX runs on the CPU.</source>
        <translation>El backend de CUDA de JAX no se inició: este JAX necesita {component} {built} o posterior, pero encontró {component} {found}. JAX se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>An older CUDA library than the one JAX was built with is found first, usually a CUDA toolkit on LD_LIBRARY_PATH (such as /usr/local/cuda in a notebook image) instead of the nvidia-* wheels &apos;jax[cuda12]&apos; installs. Run &apos;pip install -U &quot;jax[cuda12]&quot;&apos; and unset LD_LIBRARY_PATH for this environment, as JAX&apos;s install guide advises. With a local CUDA (&apos;jax[cuda12_local]&apos;), install a CUDA toolkit whose {component} is {built} or newer, or a JAX release built for the CUDA you have.</source>
        <translation>Se encuentra primero una biblioteca CUDA más antigua que aquella con la que se compiló JAX, normalmente un toolkit de CUDA en LD_LIBRARY_PATH (como /usr/local/cuda en una imagen de notebook) en lugar de los wheels nvidia-* que instala &apos;jax[cuda12]&apos;. Ejecuta &apos;pip install -U &quot;jax[cuda12]&quot;&apos; y quita LD_LIBRARY_PATH en este entorno, como aconseja la guía de instalación de JAX. Con un CUDA local (&apos;jax[cuda12_local]&apos;), instala un toolkit de CUDA cuyo {component} sea {built} o más nuevo, o una versión de JAX compilada para el CUDA que tienes.</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA plugin does not fit the installed jaxlib (PJRT API {plugin_api} against {framework_api}), so JAX cannot use the GPU.</source>
        <translation>El plugin de CUDA de JAX no es compatible con el jaxlib instalado (API de PJRT {plugin_api} frente a {framework_api}), por lo que JAX no puede usar la GPU.</translation>
    </message>
    <message>
        <source>jax, jaxlib, jax-cuda12-plugin and jax-cuda12-pjrt must all come from the same release. Reinstall them together from PyPI: &apos;pip uninstall -y jax jaxlib jax-cuda12-plugin jax-cuda12-pjrt&apos;, then &apos;pip install -U &quot;jax[cuda12]&quot;&apos; (or one pinned version for all: &apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos;). Do not mix a jaxlib from another index with the plugin from PyPI.</source>
        <translation>jax, jaxlib, jax-cuda12-plugin y jax-cuda12-pjrt deben proceder todos de la misma versión. Reinstálalos juntos desde PyPI: &apos;pip uninstall -y jax jaxlib jax-cuda12-plugin jax-cuda12-pjrt&apos; y luego &apos;pip install -U &quot;jax[cuda12]&quot;&apos; (o una única versión fijada para todos: &apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos;). No mezcles un jaxlib de otro índice con el plugin de PyPI.</translation>
    </message>
    <message>
        <source>JAX&apos;s CUDA plugin is from another release than jax and jaxlib and failed to start ({plugin_error}), so JAX cannot use the GPU.</source>
        <translation>El plugin de CUDA de JAX es de una versión distinta de la de jax y jaxlib y no pudo iniciarse ({plugin_error}), por lo que JAX no puede usar la GPU.</translation>
    </message>
    <message>
        <source>jax, jaxlib, jax-cuda12-plugin and jax-cuda12-pjrt must all come from the same release; an upgrade of one of them (or an old plugin left behind) breaks the others. Install them together at one version: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; for the newest, or &apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos; with the jax version your project needs (&apos;pip show jax&apos; prints it); &apos;pip list | grep jax&apos; must then show one version for all four.</source>
        <translation>jax, jaxlib, jax-cuda12-plugin y jax-cuda12-pjrt deben proceder todos de la misma versión; actualizar uno de ellos (o dejar un plugin antiguo) rompe los demás. Instálalos juntos en una misma versión: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; para la más reciente, o &apos;pip install &quot;jax[cuda12]==VERSION&quot;&apos; con la versión de jax que necesite tu proyecto (&apos;pip show jax&apos; la muestra); después, &apos;pip list | grep jax&apos; debe mostrar la misma versión para los cuatro.</translation>
    </message>
    <message>
        <source>jaxlib {jaxlib} does not fit jax {jax}, so JAX does not start at all.</source>
        <translation>jaxlib {jaxlib} no es compatible con jax {jax}, por lo que JAX no llega a iniciarse.</translation>
    </message>
    <message>
        <source>jax and jaxlib must come from the same release. Install them in one command so pip picks versions that fit: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; on Linux with an NVIDIA GPU, &apos;pip install -U jax&apos; for the CPU. If a project needs jax {jax}, install the jaxlib of that same release instead of the newer {jaxlib}.</source>
        <translation>jax y jaxlib deben proceder de la misma versión. Instálalos con un solo comando para que pip elija versiones compatibles: &apos;pip install -U &quot;jax[cuda12]&quot;&apos; en Linux con una GPU NVIDIA, &apos;pip install -U jax&apos; para la CPU. Si un proyecto necesita jax {jax}, instala el jaxlib de esa misma versión en lugar del {jaxlib}, más reciente.</translation>
    </message>
    <message>
        <source>JAX could not load cuDNN (&apos;Unable to load cuDNN. Is it installed?&apos;), so its CUDA backend did not start and JAX runs on the CPU.</source>
        <translation>JAX no pudo cargar cuDNN (&apos;Unable to load cuDNN. Is it installed?&apos;), por lo que su backend de CUDA no se inició y JAX se ejecuta en la CPU.</translation>
    </message>
    <message>
        <source>With &apos;jax[cuda12]&apos; cuDNN comes as the nvidia-cudnn-cu12 wheel. Usually another cuDNN is found first, or the wheel is missing or too old: unset LD_LIBRARY_PATH (JAX&apos;s install guide, https://docs.jax.dev/en/latest/installation.html: with the pip CUDA wheels it must not point to other CUDA libraries), then run &apos;pip install -U &quot;jax[cuda12]&quot;&apos; again. If PyTorch or TensorFlow in the same environment pinned an older nvidia-cudnn-cu12 (cuDNN 8), current JAX needs cuDNN 9: give JAX its own environment. With a local CUDA (&apos;jax[cuda12_local]&apos;), install cuDNN 9 for CUDA 12 and put its lib folder on LD_LIBRARY_PATH.</source>
        <translation>Con &apos;jax[cuda12]&apos;, cuDNN se instala como el wheel nvidia-cudnn-cu12. Normalmente se encuentra antes otro cuDNN, o el wheel falta o es demasiado antiguo: elimina la variable LD_LIBRARY_PATH (según la guía de instalación de JAX, https://docs.jax.dev/en/latest/installation.html, con los wheels de CUDA de pip no debe apuntar a otras bibliotecas de CUDA) y vuelve a ejecutar &apos;pip install -U &quot;jax[cuda12]&quot;&apos;. Si PyTorch o TensorFlow fijaron un nvidia-cudnn-cu12 más antiguo (cuDNN 8) en el mismo entorno, ten en cuenta que las versiones actuales de JAX necesitan cuDNN 9: usa un entorno propio para JAX. Con un CUDA local (&apos;jax[cuda12_local]&apos;), instala cuDNN 9 para CUDA 12 y pon su carpeta lib en LD_LIBRARY_PATH.</translation>
    </message>
    <message>
        <source>ONNX Runtime could not start its CUDA provider and runs on the CPU (&apos;Failed to create CUDAExecutionProvider&apos;).</source>
        <translation>ONNX Runtime no pudo iniciar su proveedor de CUDA y se ejecuta en la CPU (&apos;Failed to create CUDAExecutionProvider&apos;).</translation>
    </message>
    <message>
        <source>onnxruntime-gpu needs the CUDA and cuDNN major versions it was built for (listed per release at https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements; since 1.19 the PyPI package is built for CUDA 12 and cuDNN 9, before it for CUDA 11 and cuDNN 8; recent releases name them in this warning). Install them as wheels into this environment: &apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, or, with PyTorch installed, call &apos;onnxruntime.preload_dlls()&apos; before creating the session. Keep only one of &apos;onnxruntime&apos; and &apos;onnxruntime-gpu&apos; installed.</source>
        <translation>onnxruntime-gpu necesita las versiones principales de CUDA y cuDNN para las que se compiló (indicadas para cada versión en https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements; desde la 1.19, el paquete de PyPI se compila para CUDA 12 y cuDNN 9, y antes, para CUDA 11 y cuDNN 8; las versiones recientes las indican en esta advertencia). Instálalas como wheels en este entorno: &apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, o, con PyTorch instalado, llama a &apos;onnxruntime.preload_dlls()&apos; antes de crear la sesión. Mantén instalado solo uno de &apos;onnxruntime&apos; y &apos;onnxruntime-gpu&apos;.</translation>
    </message>
    <message>
        <source>ONNX Runtime could not start its CUDA provider and runs on the CPU: this onnxruntime-gpu needs CUDA {cuda}.x and cuDNN {cudnn}.x, and could not load them.</source>
        <translation>ONNX Runtime no pudo iniciar su proveedor de CUDA y se ejecuta en la CPU: este onnxruntime-gpu necesita CUDA {cuda}.x y cuDNN {cudnn}.x, y no pudo cargarlos.</translation>
    </message>
    <message>
        <source>Give it CUDA {cuda} and cuDNN {cudnn} libraries: install them as wheels into this environment (&apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, which brings NVIDIA&apos;s CUDA and cuDNN wheels), or, with a PyTorch built for CUDA {cuda} and cuDNN {cudnn} in the same environment, call &apos;onnxruntime.preload_dlls()&apos; before creating the session. A CUDA toolkit or cuDNN installed separately must be of exactly these major versions, with their bin folders on PATH (Windows) or lib folders on LD_LIBRARY_PATH (Linux). On Windows, also install the latest Microsoft Visual C++ Redistributable (x64). Another major version (cuDNN 8 for a cuDNN 9 build) does not work: then install the onnxruntime-gpu release built for what you have.</source>
        <translation>Proporciónale bibliotecas de CUDA {cuda} y cuDNN {cudnn}: instálalas como wheels en este entorno (&apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, que instala los wheels de CUDA y cuDNN de NVIDIA), o, con un PyTorch compilado para CUDA {cuda} y cuDNN {cudnn} en el mismo entorno, llama a &apos;onnxruntime.preload_dlls()&apos; antes de crear la sesión. Un CUDA toolkit o un cuDNN instalados por separado deben ser exactamente de estas versiones principales, con sus carpetas bin en PATH (Windows) o sus carpetas lib en LD_LIBRARY_PATH (Linux). En Windows, instala también la versión más reciente de Microsoft Visual C++ Redistributable (x64). Otra versión principal (cuDNN 8 para una compilación con cuDNN 9) no funciona: en ese caso, instala la versión de onnxruntime-gpu compilada para lo que tengas.</translation>
    </message>
    <message>
        <source>ONNX Runtime could not start its CUDA provider and runs on the CPU: {missing}, which it needs, could not be loaded.</source>
        <translation>ONNX Runtime no pudo iniciar su proveedor de CUDA y se ejecuta en la CPU: no se pudo cargar {missing}, que necesita.</translation>
    </message>
    <message>
        <source>The library&apos;s name tells the CUDA or cuDNN major version this onnxruntime-gpu was built for (&apos;.so.11&apos; or &apos;64_11.dll&apos; is CUDA 11, &apos;cudnn64_9&apos; is cuDNN 9). If that is not the CUDA you have, install the onnxruntime-gpu built for yours (since 1.19 the PyPI package is built for CUDA 12 and cuDNN 9: &apos;pip install -U onnxruntime-gpu&apos;). Then give it the libraries as wheels: &apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, or, with a matching PyTorch in the environment, call &apos;onnxruntime.preload_dlls()&apos; before creating the session.</source>
        <translation>El nombre de la biblioteca indica la versión principal de CUDA o cuDNN para la que se compiló este onnxruntime-gpu (&apos;.so.11&apos; o &apos;64_11.dll&apos; es CUDA 11, &apos;cudnn64_9&apos; es cuDNN 9). Si no es el CUDA que tienes, instala el onnxruntime-gpu compilado para el tuyo (desde la 1.19, el paquete de PyPI se compila para CUDA 12 y cuDNN 9: &apos;pip install -U onnxruntime-gpu&apos;). Luego proporciónale las bibliotecas como wheels: &apos;pip install -U &quot;onnxruntime-gpu[cuda,cudnn]&quot;&apos;, o, con un PyTorch compatible en el entorno, llama a &apos;onnxruntime.preload_dlls()&apos; antes de crear la sesión.</translation>
    </message>
    <message>
        <source>The installed ONNX Runtime has no CUDA provider (available: {available}), so it runs on the CPU: this is the CPU-only &apos;onnxruntime&apos; package.</source>
        <translation>El ONNX Runtime instalado no tiene proveedor de CUDA (disponibles: {available}), por lo que se ejecuta en la CPU: es el paquete &apos;onnxruntime&apos;, solo para CPU.</translation>
    </message>
    <message>
        <source>&apos;onnxruntime&apos; and &apos;onnxruntime-gpu&apos; install the same &apos;onnxruntime&apos; module, and the one installed last wins; packages that require &apos;onnxruntime&apos; often bring the CPU one back. Remove both and install only the GPU package: &apos;pip uninstall -y onnxruntime onnxruntime-gpu&apos;, then &apos;pip install onnxruntime-gpu&apos;. Check with python -c &quot;import onnxruntime; print(onnxruntime.get_available_providers())&quot;, which must list CUDAExecutionProvider.</source>
        <translation>&apos;onnxruntime&apos; y &apos;onnxruntime-gpu&apos; instalan el mismo módulo &apos;onnxruntime&apos;, y prevalece el último instalado; los paquetes que requieren &apos;onnxruntime&apos; suelen volver a instalar el de CPU. Desinstala ambos e instala solo el paquete para GPU: &apos;pip uninstall -y onnxruntime onnxruntime-gpu&apos; y luego &apos;pip install onnxruntime-gpu&apos;. Compruébalo con python -c &quot;import onnxruntime; print(onnxruntime.get_available_providers())&quot;, que debe mostrar CUDAExecutionProvider.</translation>
    </message>
    <message>
        <source>{library} was loaded with an incompatible copy of a CUDA library it depends on (undefined symbol {symbol}): two CUDA installations are mixed in this process.</source>
        <translation>{library} se cargó con una copia incompatible de una biblioteca de CUDA de la que depende (símbolo no definido {symbol}): en este proceso se mezclan dos instalaciones de CUDA.</translation>
    </message>
    <message>
        <source>{library} needs nvJitLink {needed} or newer, but an older libnvJitLink.so.12 was loaded first, so the framework (usually &apos;import torch&apos;) fails.</source>
        <translation>{library} necesita nvJitLink {needed} o posterior, pero antes se cargó un libnvJitLink.so.12 más antiguo, por lo que el framework falla (normalmente en &apos;import torch&apos;).</translation>
    </message>
    <message>
        <source>The older libnvJitLink usually comes from a CUDA toolkit on LD_LIBRARY_PATH (such as /usr/local/cuda-12.1/lib64), found before the nvidia-nvjitlink-cu12 wheel that came with the framework. Unset LD_LIBRARY_PATH, or remove the toolkit&apos;s folder from it, for this environment. If the wheel itself is too old, upgrade it: &apos;pip install -U &quot;nvidia-nvjitlink-cu12&gt;={needed}&quot;&apos;.</source>
        <translation>El libnvJitLink más antiguo suele proceder de un CUDA toolkit en LD_LIBRARY_PATH (como /usr/local/cuda-12.1/lib64), que se encuentra antes que el wheel nvidia-nvjitlink-cu12 incluido con el framework. Elimina la variable LD_LIBRARY_PATH, o quita de ella la carpeta del toolkit, para este entorno. Si el propio wheel es demasiado antiguo, actualízalo: &apos;pip install -U &quot;nvidia-nvjitlink-cu12&gt;={needed}&quot;&apos;.</translation>
    </message>
    <message>
        <source>{library} was loaded with parts of another cuDNN (undefined symbol {symbol}): two cuDNN installations are mixed in this process.</source>
        <translation>{library} se cargó con partes de otro cuDNN (símbolo no definido {symbol}): en este proceso se mezclan dos instalaciones de cuDNN.</translation>
    </message>
    <message>
        <source>cuDNN&apos;s libraries must all come from one release. A system cuDNN (the libcudnn packages in /usr/lib/x86_64-linux-gnu) or a conda cuDNN is mixed with the nvidia-cudnn wheel the framework installed. Unset LD_LIBRARY_PATH, or remove the other cuDNN&apos;s folder from it, for this environment; or remove the other cuDNN (&apos;sudo apt remove libcudnn8&apos;, &apos;conda remove cudnn&apos;) if nothing else needs it. PyTorch and TensorFlow that need different cuDNN versions belong in separate environments.</source>
        <translation>Todas las bibliotecas de cuDNN deben proceder de la misma versión. Un cuDNN del sistema (los paquetes libcudnn en /usr/lib/x86_64-linux-gnu) o un cuDNN de conda se mezcla con el wheel nvidia-cudnn que instaló el framework. Elimina la variable LD_LIBRARY_PATH, o quita de ella la carpeta del otro cuDNN, para este entorno; o desinstala el otro cuDNN (&apos;sudo apt remove libcudnn8&apos;, &apos;conda remove cudnn&apos;) si nada más lo necesita. Si PyTorch y TensorFlow necesitan versiones distintas de cuDNN, deben estar en entornos separados.</translation>
    </message>
    <message>
        <source>{library} could not be loaded: a function it needs is missing ([WinError 127]), because another copy of a CUDA or cuDNN DLL was loaded first.</source>
        <translation>No se pudo cargar {library}: falta una función que necesita ([WinError 127]) porque antes se cargó otra copia de una DLL de CUDA o cuDNN.</translation>
    </message>
    <message>
        <source>The framework brings its own CUDA and cuDNN DLLs (PyTorch in torch\lib, others as nvidia-* wheels in site-packages\nvidia); a CUDA toolkit&apos;s or cuDNN&apos;s bin folder on PATH, or cuDNN DLLs copied into C:\Windows\System32, can be found first. Remove those folders from PATH (at least for this environment), delete cuDNN DLLs copied into System32, and start a new terminal. If a toolkit must stay, it must be the same CUDA and cuDNN release as the framework&apos;s. Frameworks that need different cuDNN versions (PyTorch and Paddle or ONNX Runtime) belong in separate environments.</source>
        <translation>El framework trae sus propias DLL de CUDA y cuDNN (PyTorch, en torch\lib; otros, como wheels nvidia-* en site-packages\nvidia); la carpeta bin de un CUDA toolkit o de cuDNN en PATH, o las DLL de cuDNN copiadas en C:\Windows\System32, pueden encontrarse antes. Quita esas carpetas de PATH (al menos para este entorno), elimina las DLL de cuDNN copiadas en System32 y abre un terminal nuevo. Si un toolkit debe quedarse, tiene que ser de la misma versión de CUDA y cuDNN que la del framework. Los frameworks que necesitan versiones distintas de cuDNN (PyTorch y Paddle u ONNX Runtime) deben estar en entornos separados.</translation>
    </message>
    <message>
        <source>cuBLAS could not load its cuBLASLt library (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): it is missing, or another CUDA&apos;s copy was found first.</source>
        <translation>cuBLAS no pudo cargar su biblioteca cuBLASLt (&apos;Invalid handle. Cannot load symbol {symbol}&apos;): falta, o se encontró antes la copia de otro CUDA.</translation>
    </message>
    <message>
        <source>libcublas and libcublasLt must come from the same CUDA release. Look for another CUDA toolkit&apos;s folder on LD_LIBRARY_PATH (PATH on Windows) and remove it, or unset LD_LIBRARY_PATH, for this environment; then reinstall the framework so that its nvidia-cublas wheel is complete (&apos;pip install --force-reinstall nvidia-cublas-cu12&apos; for CUDA 12). A toolkit installed by hand must match the CUDA of the framework build.</source>
        <translation>libcublas y libcublasLt deben proceder de la misma versión de CUDA. Busca la carpeta de otro CUDA toolkit en LD_LIBRARY_PATH (PATH en Windows) y quítala, o elimina la variable LD_LIBRARY_PATH, para este entorno; luego reinstala el framework para que su wheel nvidia-cublas esté completo (&apos;pip install --force-reinstall nvidia-cublas-cu12&apos; para CUDA 12). Un toolkit instalado a mano debe coincidir con el CUDA de la compilación del framework.</translation>
    </message>
    <message>
        <source>The loaded {library} is older than the framework knows: it lacks the optional function {symbol}, and the framework goes on without it.</source>
        <translation>El {library} cargado es más antiguo de lo que conoce el framework: le falta la función opcional {symbol}, y el framework continúa sin ella.</translation>
    </message>
    <message>
        <source>This does not stop GPU work. It shows that a CUDA toolkit&apos;s library (on PATH or LD_LIBRARY_PATH) is used instead of the newer one the framework could bring; if other CUDA errors follow, remove that toolkit&apos;s folder from the search path for this environment, or install the framework build for the CUDA you have.</source>
        <translation>Esto no impide el trabajo en la GPU. Indica que se usa la biblioteca de un CUDA toolkit (en PATH o LD_LIBRARY_PATH) en lugar de la más reciente que podría traer el framework; si aparecen otros errores de CUDA, quita la carpeta de ese toolkit de la ruta de búsqueda para este entorno, o instala la compilación del framework para el CUDA que tengas.</translation>
    </message>
    <message>
        <source>bitsandbytes could not load its CUDA library and fell back to its CPU library: 8-bit and 4-bit quantisation on the GPU are not available.</source>
        <translation>bitsandbytes no pudo cargar su biblioteca CUDA y recurrió a su biblioteca para CPU: la cuantización de 8 y 4 bits en la GPU no está disponible.</translation>
    </message>
    <message>
        <source>Install the released wheel, which carries the CUDA libraries: &apos;pip install -U bitsandbytes&apos; (not a source checkout, which has none until it is compiled). It loads the library for torch&apos;s CUDA version: check that torch is a CUDA build (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; must not print None) and run &apos;python -m bitsandbytes&apos; to see what it finds.</source>
        <translation>Instala el wheel publicado, que incluye las bibliotecas CUDA: &apos;pip install -U bitsandbytes&apos; (no una copia del código fuente, que no tiene ninguna hasta que se compila). Carga la biblioteca correspondiente a la versión de CUDA de torch: comprueba que torch sea una compilación con CUDA (&apos;python -c &quot;import torch; print(torch.version.cuda)&quot;&apos; no debe imprimir None) y ejecuta &apos;python -m bitsandbytes&apos; para ver qué encuentra.</translation>
    </message>
    <message>
        <source>bitsandbytes has no library for CUDA {cuda} (libbitsandbytes_cuda*.so is not in {folder}), so it fell back to its CPU library.</source>
        <translation>bitsandbytes no tiene ninguna biblioteca para CUDA {cuda} (libbitsandbytes_cuda*.so no está en {folder}), así que recurrió a su biblioteca para CPU.</translation>
    </message>
    <message>
        <source>If {folder} is not in site-packages, bitsandbytes is imported from a source checkout that was never compiled: run the program from another folder and install the released wheel, which carries the CUDA libraries (&apos;pip install -U bitsandbytes&apos;), or compile the checkout (&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;, then &apos;pip install .&apos;). bitsandbytes picks the library of torch&apos;s CUDA version; if the wheel has none for CUDA {cuda}, install torch for a CUDA it supports, or update bitsandbytes.</source>
        <translation>Si {folder} no está en site-packages, bitsandbytes se importa desde una copia del código fuente que nunca se compiló: ejecuta el programa desde otra carpeta e instala el wheel publicado, que incluye las bibliotecas CUDA (&apos;pip install -U bitsandbytes&apos;), o compila la copia (&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;, y después &apos;pip install .&apos;). bitsandbytes elige la biblioteca de la versión de CUDA de torch; si el wheel no tiene ninguna para CUDA {cuda}, instala torch para una CUDA que admita, o actualiza bitsandbytes.</translation>
    </message>
    <message>
        <source>bitsandbytes looked for a library for CUDA {cuda} because BNB_CUDA_VERSION={override} is set, found none in {folder}, and fell back to its CPU library.</source>
        <translation>bitsandbytes buscó una biblioteca para CUDA {cuda} porque está definida BNB_CUDA_VERSION={override}, no encontró ninguna en {folder} y recurrió a su biblioteca para CPU.</translation>
    </message>
    <message>
        <source>Unset BNB_CUDA_VERSION (&apos;unset BNB_CUDA_VERSION&apos;, or &apos;export BNB_CUDA_VERSION=&apos;) so that bitsandbytes loads the library of torch&apos;s own CUDA version; set it only when a library for that CUDA exists. If {folder} is not in site-packages, bitsandbytes is imported from a source checkout that was never compiled: install the released wheel (&apos;pip install -U bitsandbytes&apos;, run from another folder) or compile the checkout (&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;).</source>
        <translation>Elimina BNB_CUDA_VERSION (&apos;unset BNB_CUDA_VERSION&apos;, o &apos;export BNB_CUDA_VERSION=&apos;) para que bitsandbytes cargue la biblioteca de la propia versión de CUDA de torch; defínela solo cuando exista una biblioteca para esa CUDA. Si {folder} no está en site-packages, bitsandbytes se importa desde una copia del código fuente que nunca se compiló: instala el wheel publicado (&apos;pip install -U bitsandbytes&apos;, ejecutado desde otra carpeta) o compila la copia (&apos;cmake -DCOMPUTE_BACKEND=cuda -S . &amp;&amp; make&apos;).</translation>
    </message>
    <message>
        <source>The web UI&apos;s start-up check failed: the torch in its venv cannot use the GPU (&apos;Torch is not able to use GPU&apos;).</source>
        <translation>La comprobación de inicio de la interfaz web falló: el torch de su venv no puede usar la GPU (&apos;Torch is not able to use GPU&apos;).</translation>
    </message>
    <message>
        <source>Check with the web UI&apos;s own Python (venv/bin/python, or venv\Scripts\python.exe): &apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())&quot;&apos;. A version ending in &apos;+cpu&apos; or CUDA None is a CPU build: delete the venv folder and start again, or install torch with CUDA into it (&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/cu126&apos;). If &apos;nvidia-smi&apos; fails, install or repair the NVIDIA driver first. Adding --skip-torch-cuda-test only runs everything on the CPU.</source>
        <translation>Compruébalo con el Python propio de la interfaz web (venv/bin/python, o venv\Scripts\python.exe): &apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())&quot;&apos;. Una versión que termina en &apos;+cpu&apos; o CUDA None es una compilación para CPU: elimina la carpeta venv y vuelve a empezar, o instala en ella torch con CUDA (&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/cu126&apos;). Si &apos;nvidia-smi&apos; falla, instala o repara primero el controlador de NVIDIA. Añadir --skip-torch-cuda-test solo hace que todo se ejecute en la CPU.</translation>
    </message>
    <message>
        <source>The web UI&apos;s GPU check ran during &apos;docker build&apos;, where there is no GPU (&apos;Torch is not able to use GPU&apos;).</source>
        <translation>La comprobación de GPU de la interfaz web se ejecutó durante &apos;docker build&apos;, donde no hay GPU (&apos;Torch is not able to use GPU&apos;).</translation>
    </message>
    <message>
        <source>A build step never gets a GPU: only a running container does, with &apos;docker run --gpus all&apos; (or compose&apos;s GPU reservation) and the NVIDIA Container Toolkit on the host. Add --skip-torch-cuda-test to the command the Dockerfile runs at build time (for example in COMMANDLINE_ARGS of that RUN step), and let the check happen when the container starts with --gpus all.</source>
        <translation>Un paso de compilación nunca obtiene una GPU: solo la obtiene un contenedor en ejecución, con &apos;docker run --gpus all&apos; (o la reserva de GPU de compose) y NVIDIA Container Toolkit en el host. Añade --skip-torch-cuda-test al comando que el Dockerfile ejecuta durante la compilación (por ejemplo, en COMMANDLINE_ARGS de ese paso RUN), y deja que la comprobación se haga cuando el contenedor se inicie con --gpus all.</translation>
    </message>
    <message>
        <source>The web UI&apos;s torch cannot use the GPU (&apos;Torch is not able to use GPU&apos;), and the log names an AMD GPU: only torch&apos;s ROCm build (Linux) can use it, and only on a GPU that ROCm release supports.</source>
        <translation>El torch de la interfaz web no puede usar la GPU (&apos;Torch is not able to use GPU&apos;), y el registro menciona una GPU AMD: solo la compilación ROCm de torch (Linux) puede usarla, y solo en una GPU compatible con esa versión de ROCm.</translation>
    </message>
    <message>
        <source>On Linux, install torch&apos;s ROCm build into the web UI&apos;s venv as its wiki page &apos;Install and Run on AMD GPUs&apos; says, for example TORCH_COMMAND=&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/rocm6.2&apos; (delete the venv folder first), and check a GPU your ROCm release supports. On Windows there is no ROCm build of torch for the web UI: use the AMD fork with DirectML or ZLUDA (lshqqytiger/stable-diffusion-webui-amdgpu). --skip-torch-cuda-test only runs on the CPU.</source>
        <translation>En Linux, instala la compilación ROCm de torch en el venv de la interfaz web como indica su página wiki &apos;Install and Run on AMD GPUs&apos;, por ejemplo TORCH_COMMAND=&apos;pip install torch torchvision --index-url https://download.pytorch.org/whl/rocm6.2&apos; (elimina antes la carpeta venv), y comprueba que tu versión de ROCm admita tu GPU. En Windows no hay ninguna compilación ROCm de torch para la interfaz web: usa el fork para AMD con DirectML o ZLUDA (lshqqytiger/stable-diffusion-webui-amdgpu). --skip-torch-cuda-test solo hace que se ejecute en la CPU.</translation>
    </message>
    <message>
        <source>cuBLAS refused a matrix operation on this GPU (CUBLAS_STATUS_NOT_SUPPORTED).</source>
        <translation>cuBLAS rechazó una operación matricial en esta GPU (CUBLAS_STATUS_NOT_SUPPORTED).</translation>
    </message>
    <message>
        <source>The cuBLAS of this build is too old for the GPU or for the operation: install a framework build for a CUDA that knows the GPU (an RTX 40-series GPU, Ada, needs CUDA 11.8 or newer, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;; an RTX 50-series GPU needs CUDA 12.8 or newer, cu128) and a driver for it. Old Docker images with CUDA 11.7 or older cannot work on such GPUs.</source>
        <translation>El cuBLAS de esta compilación es demasiado antiguo para la GPU o para la operación: instala una compilación del framework para una CUDA que reconozca la GPU (una GPU RTX serie 40, Ada, necesita CUDA 11.8 o posterior, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos;; una GPU RTX serie 50 necesita CUDA 12.8 o posterior, cu128) y un controlador compatible. Las imágenes de Docker antiguas con CUDA 11.7 o anterior no pueden funcionar en esas GPU.</translation>
    </message>
    <message>
        <source>cuBLAS refused a bfloat16 matrix product (CUBLAS_STATUS_NOT_SUPPORTED with CUDA_R_16BF): this GPU or cuBLAS does not support bfloat16 there.</source>
        <translation>cuBLAS rechazó un producto matricial en bfloat16 (CUBLAS_STATUS_NOT_SUPPORTED con CUDA_R_16BF): esta GPU o cuBLAS no admite bfloat16 en esa operación.</translation>
    </message>
    <message>
        <source>bfloat16 matrix products need a GPU of compute capability 8.0 (Ampere, RTX 30 series, A100) or newer (&apos;python -c &quot;import torch; print(torch.cuda.is_bf16_supported())&quot;&apos;). On an older GPU run the model in float16 or float32 instead: choose fp16/fp32 in the program&apos;s settings, or load it with torch_dtype=torch.float16. On a newer GPU, install a current framework build.</source>
        <translation>Los productos matriciales en bfloat16 necesitan una GPU con capacidad de cómputo 8.0 (Ampere, serie RTX 30, A100) o superior (&apos;python -c &quot;import torch; print(torch.cuda.is_bf16_supported())&quot;&apos;). En una GPU más antigua, ejecuta el modelo en float16 o float32: elige fp16/fp32 en la configuración del programa, o cárgalo con torch_dtype=torch.float16. En una GPU más reciente, instala una compilación actual del framework.</translation>
    </message>
    <message>
        <source>The compiled extension {module} was built for another PyTorch version or C++ ABI: it needs a torch C++ symbol this torch does not have (&apos;undefined symbol&apos;).</source>
        <translation>La extensión compilada {module} se compiló para otra versión de PyTorch u otra ABI de C++: necesita un símbolo C++ de torch que este torch no tiene (&apos;undefined symbol&apos;).</translation>
    </message>
    <message>
        <source>Reinstall the package that contains {module} in a build for this torch: a wheel built for the same torch version, CUDA and C++ ABI (&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos;), or build it here against the installed torch with &apos;pip install --no-build-isolation --no-cache-dir --force-reinstall PACKAGE&apos;. Or install the torch version the package was built for (the one it requires). Upgrading torch after installing an extension breaks it the same way.</source>
        <translation>Reinstala el paquete que contiene {module} en una compilación para este torch: un wheel compilado para la misma versión de torch, CUDA y ABI de C++ (&apos;python -c &quot;import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos;), o compílalo aquí con el torch instalado mediante &apos;pip install --no-build-isolation --no-cache-dir --force-reinstall PACKAGE&apos;. O instala la versión de torch para la que se compiló el paquete (la que requiere). Actualizar torch después de instalar una extensión la rompe de la misma forma.</translation>
    </message>
    <message>
        <source>flash-attn&apos;s compiled module {module} was built for another PyTorch version or C++ ABI: it needs a torch C++ symbol this torch does not have (&apos;undefined symbol&apos;).</source>
        <translation>El módulo compilado {module} de flash-attn se compiló para otra versión de PyTorch u otra ABI de C++: necesita un símbolo C++ de torch que este torch no tiene (&apos;undefined symbol&apos;).</translation>
    </message>
    <message>
        <source>Install the flash-attn wheel built for this torch: its release assets name the CUDA, torch version and ABI (flash_attn-VERSION+cu12torch2.6cxx11abiFALSE-...whl); pick the one matching &apos;python -c &quot;import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos; and your Python, and install it with pip. Or build it against the installed torch: &apos;pip install flash-attn --no-build-isolation --no-cache-dir --force-reinstall&apos; (needs the CUDA toolkit). Upgrading torch after installing flash-attn breaks it the same way.</source>
        <translation>Instala el wheel de flash-attn compilado para este torch: los archivos de sus versiones publicadas indican la CUDA, la versión de torch y la ABI (flash_attn-VERSION+cu12torch2.6cxx11abiFALSE-...whl); elige el que coincida con &apos;python -c &quot;import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)&quot;&apos; y con tu Python, e instálalo con pip. O compílalo con el torch instalado: &apos;pip install flash-attn --no-build-isolation --no-cache-dir --force-reinstall&apos; (necesita el CUDA toolkit). Actualizar torch después de instalar flash-attn lo rompe de la misma forma.</translation>
    </message>
    <message>
        <source>xFormers was built for PyTorch {built} but torch {have} is installed: its CUDA kernels (memory-efficient attention) are not loaded.</source>
        <translation>xFormers se compiló para PyTorch {built}, pero está instalado torch {have}: sus kernels CUDA (atención eficiente en memoria) no se cargan.</translation>
    </message>
    <message>
        <source>Install the xFormers release built for torch {have}, from the same PyTorch index as torch: &apos;pip install -U xformers --index-url https://download.pytorch.org/whl/{index}&apos; (pip may then change torch: pin it, or install both in one command). Or install the torch {built} it was built for.</source>
        <translation>Instala la versión de xFormers compilada para torch {have}, desde el mismo índice de PyTorch que torch: &apos;pip install -U xformers --index-url https://download.pytorch.org/whl/{index}&apos; (pip puede cambiar entonces torch: fija su versión, o instala ambos en un solo comando). O instala el torch {built} para el que se compiló.</translation>
    </message>
    <message>
        <source>xFormers was built for PyTorch {built}, but the installed torch {have} is a CPU-only build: nothing runs on the GPU.</source>
        <translation>xFormers se compiló para PyTorch {built}, pero el torch {have} instalado es una compilación solo para CPU: nada se ejecuta en la GPU.</translation>
    </message>
    <message>
        <source>The problem is torch, not xFormers: uninstall torch and install its CUDA build from the PyTorch index that fits your driver, for example &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (on Windows, torch from PyPI is CPU-only), then the xFormers release for that torch from the same index (&apos;pip install -U xformers --index-url https://download.pytorch.org/whl/cu126&apos;).</source>
        <translation>El problema es torch, no xFormers: desinstala torch e instala su compilación con CUDA desde el índice de PyTorch que corresponda a tu controlador, por ejemplo &apos;pip install torch --index-url https://download.pytorch.org/whl/cu126&apos; (en Windows, torch de PyPI es solo para CPU), y después la versión de xFormers para ese torch desde el mismo índice (&apos;pip install -U xformers --index-url https://download.pytorch.org/whl/cu126&apos;).</translation>
    </message>
    <message>
        <source>Install the xFormers release built for torch {have} from the same place torch came from (the PyTorch index &apos;https://download.pytorch.org/whl/cuXYZ&apos; of torch&apos;s CUDA, or PyPI, whose newest xFormers fits PyPI&apos;s newest torch), or install the torch {built} it was built for.</source>
        <translation>Instala la versión de xFormers compilada para torch {have} desde el mismo lugar del que vino torch (el índice de PyTorch &apos;https://download.pytorch.org/whl/cuXYZ&apos; de la CUDA de torch, o PyPI, cuyo xFormers más reciente corresponde al torch más reciente de PyPI), o instala el torch {built} para el que se compiló.</translation>
    </message>
    <message>
        <source>TensorRT cannot load the engine: it was serialised by another TensorRT version (engine tag {engine}, this TensorRT&apos;s tag {current}).</source>
        <translation>TensorRT no puede cargar el motor: lo serializó otra versión de TensorRT (etiqueta del motor {engine}, etiqueta de este TensorRT {current}).</translation>
    </message>
    <message>
        <source>A TensorRT engine runs only with the TensorRT version (and GPU model) that built it. Rebuild it here from the model with the installed TensorRT, for example &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos; (on a Jetson, on the device itself), or install the TensorRT that built it. Check that only one TensorRT is found (LD_LIBRARY_PATH, the container image&apos;s version).</source>
        <translation>Un motor de TensorRT solo se ejecuta con la versión de TensorRT (y el modelo de GPU) que lo compiló. Vuelve a compilarlo aquí a partir del modelo con el TensorRT instalado, por ejemplo &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos; (en un Jetson, en el propio dispositivo), o instala el TensorRT que lo compiló. Comprueba que solo se encuentre un TensorRT (LD_LIBRARY_PATH, la versión de la imagen del contenedor).</translation>
    </message>
    <message>
        <source>TensorRT {installed} cannot load the engine: it was built with TensorRT {built}.</source>
        <translation>TensorRT {installed} no puede cargar el motor: se compiló con TensorRT {built}.</translation>
    </message>
    <message>
        <source>A TensorRT engine runs only with the TensorRT version (and GPU model) that built it. Rebuild it here with TensorRT {installed} from the model, for example &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos; (or the program&apos;s own export step), or install TensorRT {built}. If several TensorRT copies are installed (a Python package and a system one), make sure the same one builds and runs it.</source>
        <translation>Un motor de TensorRT solo se ejecuta con la versión de TensorRT (y el modelo de GPU) que lo compiló. Vuelve a compilarlo aquí con TensorRT {installed} a partir del modelo, por ejemplo &apos;trtexec --onnx=model.onnx --saveEngine=model.engine&apos; (o el paso de exportación propio del programa), o instala TensorRT {built}. Si hay varias copias de TensorRT instaladas (un paquete de Python y una del sistema), asegúrate de que sea la misma la que lo compile y lo ejecute.</translation>
    </message>
</context>
<context>
    <name>pathedit</name>
    <message>
        <source>the folder does not exist</source>
        <extracomment>Scopes in the order Windows joins them. The translation context of the problems&apos; words (lupdate reads literal contexts only). The problem workflow/pathedit/request.py adds to the entries of a REG_SZ value with %VARS%.</extracomment>
        <translation>la carpeta no existe</translation>
    </message>
    <message>
        <source>already on PATH earlier: only the first one counts</source>
        <translation>ya aparece antes en PATH: solo cuenta la primera</translation>
    </message>
    <message>
        <source>empty entry (an extra &apos;;&apos;)</source>
        <translation>entrada vacía (un &apos;;&apos; de más)</translation>
    </message>
    <message>
        <source>another CUDA version comes first</source>
        <translation>otra versión de CUDA va primero</translation>
    </message>
    <message>
        <source>the value is REG_SZ, so its %VARIABLES% are never expanded</source>
        <translation>el valor es REG_SZ, así que sus %VARIABLES% nunca se expanden</translation>
    </message>
    <message>
        <source>CUDA {version} comes first on PATH</source>
        <translation>CUDA {version} va primero en PATH</translation>
    </message>
</context>
<context>
    <name>plans</name>
    <message>
        <source>(CPU-only build)</source>
        <translation>(compilación solo para CPU)</translation>
    </message>
    <message>
        <source>(wheel {variant})</source>
        <translation>(wheel {variant})</translation>
    </message>
    <message>
        <source>venv (Python virtual environment)</source>
        <translation>venv (entorno virtual de Python)</translation>
    </message>
    <message>
        <source>{environment} inside WSL 2</source>
        <translation>{environment} dentro de WSL 2</translation>
    </message>
    <message>
        <source>No NVIDIA GPU here: {framework} will train on the CPU (slower, but it works).</source>
        <translation>No hay GPU NVIDIA aquí: {framework} entrenará en la CPU (más lento, pero funciona).</translation>
    </message>
    <message>
        <source>{framework} will train on the CPU only: the GPU cannot be used (the reasons are below).</source>
        <translation>{framework} entrenará solo en la CPU: la GPU no se puede usar (los motivos están abajo).</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible after a driver update.</source>
        <translation>El entrenamiento en GPU con {framework} es posible tras actualizar el controlador.</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible inside WSL 2 (Linux on this Windows).</source>
        <translation>El entrenamiento en GPU con {framework} es posible dentro de WSL 2 (Linux en este Windows).</translation>
    </message>
    <message>
        <source>{framework} can reach the GPU only through PTX compiled at first use: it may work, but no official build covers this GPU.</source>
        <translation>{framework} solo puede usar la GPU mediante PTX compilado en el primer uso: puede funcionar, pero ninguna compilación oficial cubre esta GPU.</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible on this machine as it is.</source>
        <translation>El entrenamiento en GPU con {framework} es posible en esta máquina tal como está.</translation>
    </message>
    <message>
        <source>GPU training with {framework} is possible with the plan below, not with exactly what you picked.</source>
        <translation>El entrenamiento en GPU con {framework} es posible con el plan de abajo, no exactamente con lo que elegiste.</translation>
    </message>
    <message>
        <source>CPU build</source>
        <translation>Compilación para CPU</translation>
    </message>
    <message>
        <source>CPU build: no CUDA, runs on the processor</source>
        <translation>Compilación para CPU: sin CUDA, se ejecuta en el procesador</translation>
    </message>
    <message>
        <source>CUDA {cuda}, cuDNN {cudnn}</source>
        <translation>CUDA {cuda}, cuDNN {cudnn}</translation>
    </message>
    <message>
        <source>CUDA {cuda}</source>
        <translation>CUDA {cuda}</translation>
    </message>
    <message>
        <source>{cuda} (must be installed on the system: the wizard does not install it)</source>
        <translation>{cuda} (debe instalarse en el sistema: el asistente no lo instala)</translation>
    </message>
    <message>
        <source>{cuda} (NVIDIA&apos;s CUDA {runtime} and cuDNN {cudnn_runtime} wheels inside the environment: no CUDA toolkit needed)</source>
        <translation>{cuda} (wheels de CUDA {runtime} y cuDNN {cudnn_runtime} de NVIDIA dentro del entorno: no hace falta el CUDA Toolkit)</translation>
    </message>
    <message>
        <source>{cuda} (comes inside the environment: no CUDA toolkit needed)</source>
        <translation>{cuda} (viene dentro del entorno: no hace falta el CUDA Toolkit)</translation>
    </message>
    <message>
        <source>CUDA {cuda} build, on the CPU</source>
        <translation>compilación CUDA {cuda}, en la CPU</translation>
    </message>
    <message>
        <source>CUDA {cuda} build, running on the processor here (its NVIDIA libraries come along, unused)</source>
        <translation>compilación CUDA {cuda}, que aquí se ejecuta en el procesador (sus bibliotecas de NVIDIA vienen incluidas, sin usarse)</translation>
    </message>
    <message>
        <source>ROCm {rocm}</source>
        <translation>ROCm {rocm}</translation>
    </message>
    <message>
        <source>ROCm {rocm} (comes inside the environment: only the amdgpu kernel driver is needed)</source>
        <translation>ROCm {rocm} (viene dentro del entorno: solo se necesita el controlador del kernel amdgpu)</translation>
    </message>
    <message>
        <source>Intel XPU build</source>
        <translation>Compilación XPU de Intel</translation>
    </message>
    <message>
        <source>Intel XPU build (its runtime comes inside the environment: Intel&apos;s GPU driver is needed)</source>
        <translation>Compilación XPU de Intel (su runtime viene dentro del entorno: se necesita el controlador de GPU de Intel)</translation>
    </message>
    <message>
        <source>Apple GPU (MPS)</source>
        <translation>GPU de Apple (MPS)</translation>
    </message>
    <message>
        <source>Apple GPU through Metal (MPS), part of macOS: nothing else to install</source>
        <translation>GPU de Apple mediante Metal (MPS), que forma parte de macOS: no hay que instalar nada más</translation>
    </message>
    <message>
        <source>{minimum} or newer; no NVIDIA driver answers now</source>
        <translation>{minimum} o posterior; ahora no responde ningún controlador de NVIDIA</translation>
    </message>
    <message>
        <source>{minimum} or newer; you have {driver}: update it first</source>
        <translation>{minimum} o posterior; tienes {driver}: actualízalo primero</translation>
    </message>
    <message>
        <source>{minimum} or newer; you have {driver} (fine)</source>
        <translation>{minimum} o posterior; tienes {driver} (correcto)</translation>
    </message>
    <message>
        <source>Python {python}</source>
        <translation>Python {python}</translation>
    </message>
    <message>
        <source>conda through {engine}: {packages}</source>
        <translation>conda mediante {engine}: {packages}</translation>
    </message>
    <message>
        <source>CUDA from NVIDIA&apos;s wheels</source>
        <translation>CUDA desde los wheels de NVIDIA</translation>
    </message>
    <message>
        <source>CUDA installed on the system</source>
        <translation>CUDA instalado en el sistema</translation>
    </message>
    <message>
        <source>inside WSL 2</source>
        <translation>dentro de WSL 2</translation>
    </message>
    <message>
        <source>needs a driver update</source>
        <translation>requiere actualizar el controlador</translation>
    </message>
    <message>
        <source>conda environment, made by py-rattler inside the wizard (no conda needed)</source>
        <translation>entorno conda, creado por py-rattler dentro del asistente (no necesitas conda)</translation>
    </message>
    <message>
        <source>conda environment, made by {engine}</source>
        <translation>entorno conda, creado por {engine}</translation>
    </message>
    <message>
        <source>{packages} from {channels}</source>
        <translation>{packages} de {channels}</translation>
    </message>
    <message>
        <source>Compatibility data of {date}, bundled with the wizard.</source>
        <translation>Datos de compatibilidad del {date}, incluidos con el asistente.</translation>
    </message>
    <message>
        <source>Compatibility data of {date}, fetched: {origin}.</source>
        <translation>Datos de compatibilidad del {date}, descargados: {origin}.</translation>
    </message>
    <message>
        <source>{data} Published but not yet verified (not recommended): {versions}.</source>
        <translation>{data} Publicadas pero aún sin verificar (no recomendadas): {versions}.</translation>
    </message>
    <message>
        <source>Nothing: this is a preview; below is what it would do.</source>
        <translation>Nada: esto es una vista previa; abajo se muestra lo que haría.</translation>
    </message>
    <message>
        <source>The existing environment {name} is replaced: it is moved aside, and put back if the new one fails.</source>
        <translation>El entorno existente {name} se reemplaza: se aparta y se restaura si el nuevo falla.</translation>
    </message>
    <message>
        <source>Packages come only from {folder}; nothing is downloaded.</source>
        <translation>Los paquetes vienen solo de {folder}; no se descarga nada.</translation>
    </message>
    <message>
        <source>Packages are downloaded from {index} ({why}).</source>
        <translation>Los paquetes se descargan de {index} ({why}).</translation>
    </message>
    <message>
        <source>This report does not say what WSL there is: detect again on this Windows machine to see what the route needs first.</source>
        <translation>Este informe no dice qué WSL hay: vuelve a detectar en este equipo Windows para ver qué necesita antes la ruta.</translation>
    </message>
    <message>
        <source>First, on Windows, you make WSL ready (the wizard does not run these): {commands}. Then come back here.</source>
        <translation>Primero, en Windows, preparas WSL tú (el asistente no ejecuta esto): {commands}. Después vuelve aquí.</translation>
    </message>
    <message>
        <source>Inside {distro}: a new folder {folder} holding a Python {python} environment with {packages}, made by uv; uv and Python {python} go in {home} too. No sudo: nothing else in the distribution changes, its own Python included.</source>
        <translation>Dentro de {distro}: una carpeta nueva {folder} con un entorno de Python {python} con {packages}, creado por uv; uv y Python {python} también van en {home}. Sin sudo: nada más cambia en la distribución, ni siquiera su propio Python.</translation>
    </message>
    <message>
        <source>Downloads: uv&apos;s Linux build from PyPI (checked against the digest PyPI publishes), Python {python} by uv, and the packages from PyPI; CUDA and cuDNN come as pip packages.</source>
        <translation>Descargas: la compilación de uv para Linux desde PyPI (comprobada con el resumen que publica PyPI), Python {python} mediante uv y los paquetes desde PyPI; CUDA y cuDNN llegan como paquetes de pip.</translation>
    </message>
    <message>
        <source>Nothing in Windows: no PATH change, no CUDA toolkit; the Windows NVIDIA driver serves WSL 2.</source>
        <translation>Nada en Windows: ningún cambio en PATH, ningún CUDA toolkit; el controlador NVIDIA de Windows da servicio a WSL 2.</translation>
    </message>
    <message>
        <source>A new folder {folder} in the wizard&apos;s home folder, holding a Python {python} environment with {packages}.</source>
        <translation>Una nueva carpeta {folder} en la carpeta personal del asistente, con un entorno de Python {python} con {packages}.</translation>
    </message>
    <message>
        <source>A new folder {folder} holding a Python {python} environment with {packages}.</source>
        <translation>Una nueva carpeta {folder} con un entorno de Python {python} con {packages}.</translation>
    </message>
    <message>
        <source>A new conda environment in {folder}, made by py-rattler inside the wizard (no conda needed), with {conda_packages} from {channels}, then {packages} from pip.</source>
        <translation>Un entorno conda nuevo en {folder}, creado por py-rattler dentro del asistente (no necesitas conda), con {conda_packages} de {channels}, y después {packages} desde pip.</translation>
    </message>
    <message>
        <source>A new conda environment {name} (in {engine}&apos;s environments folder), made by {engine}, with {conda_packages}, then {packages} from pip.</source>
        <translation>Un entorno conda nuevo, {name} (en la carpeta de entornos de {engine}), creado por {engine}, con {conda_packages}, y después {packages} desde pip.</translation>
    </message>
    <message>
        <source>Settings that apply only while the environment is active: {settings}.</source>
        <translation>Ajustes que solo se aplican mientras el entorno está activo: {settings}.</translation>
    </message>
    <message>
        <source>A Jupyter kernel for this environment, for your user only.</source>
        <translation>Un kernel de Jupyter para este entorno, solo para tu usuario.</translation>
    </message>
    <message>
        <source>Inside the environment, a start-up hook (_gpuwizard_cuda_dlls.pth) that puts the NVIDIA wheels&apos; DLL folders on the DLL search path of its own Python processes only: the machine&apos;s PATH is not changed.</source>
        <translation>Dentro del entorno, un hook de inicio (_gpuwizard_cuda_dlls.pth) que añade las carpetas de DLL de los wheels de NVIDIA a la ruta de búsqueda de DLL solo de sus propios procesos de Python: el PATH de la máquina no cambia.</translation>
    </message>
    <message>
        <source>Your user PATH gets these folders (the next page shows the change first, and it can be undone):</source>
        <translation>Tu PATH de usuario recibe estas carpetas (la página siguiente muestra antes el cambio, y se puede deshacer):</translation>
    </message>
    <message>
        <source>You install yourself, the wizard does not: CUDA {cuda} and cuDNN {cudnn} from NVIDIA.</source>
        <translation>Lo instalas tú, no el asistente: CUDA {cuda} y cuDNN {cudnn} de NVIDIA.</translation>
    </message>
    <message>
        <source>You install yourself, the wizard does not: an NVIDIA driver {minimum} or newer.</source>
        <translation>Lo instalas tú, no el asistente: un controlador de NVIDIA {minimum} o posterior.</translation>
    </message>
    <message>
        <source>You install yourself, the wizard does not: a newer NVIDIA driver.</source>
        <translation>Lo instalas tú, no el asistente: un controlador de NVIDIA más reciente.</translation>
    </message>
    <message>
        <source>Nothing else: drivers and system files stay as they are. No administrator rights are needed.</source>
        <translation>Nada más: los controladores y los archivos del sistema quedan como están. No se necesitan permisos de administrador.</translation>
    </message>
    <message>
        <source>Nothing else: PATH, drivers and system files stay as they are. No administrator rights are needed.</source>
        <translation>Nada más: PATH, los controladores y los archivos del sistema quedan como están. No se necesitan permisos de administrador.</translation>
    </message>
    <message>
        <source>your mirror of PyTorch&apos;s index, from {origin}</source>
        <extracomment>PyPI&apos;s simple index: what pip and uv use when nothing says otherwise (pip.pypa.io/en/stable/cli/pip_install/#cmdoption-i, docs.astral.sh/uv/concepts/indexes/). The wizard&apos;s setting for a mirror of PyTorch&apos;s index. Where a source comes from when the person set nothing. Hosts that are this machine: plain http to them never crosses a network. The variable each tool reads its index from, used instead of ``--index-url`` for an index URL that carries a login or a token: pip&apos;s ``--index-url`` as a variable (pip.pypa.io/en/stable/topics/configuration/#environment-variables), uv&apos;s default index (docs.astral.sh/uv/reference/environment/#uv_default_index, which uv prefers to UV_INDEX_URL). The variable the py-rattler engine reads its channels from (a JSON list), used instead of ``--channel`` when one of them carries a login or a token (``adapters/envs/rattler_engine.py``). Variables that carry a source a tool was given out of its command line: a log shows them. What an index is contacted for: the plan&apos;s packages, or only pip for a uv environment.</extracomment>
        <translation>tu réplica del índice de PyTorch, tomada de {origin}</translation>
    </message>
    <message>
        <source>PyTorch&apos;s own index, for its {variant} build</source>
        <translation>el índice propio de PyTorch, para su compilación {variant}</translation>
    </message>
    <message>
        <source>your PyPI mirror, from {origin}</source>
        <translation>tu réplica de PyPI, tomada de {origin}</translation>
    </message>
    <message>
        <source>PyPI, the Python Package Index</source>
        <translation>PyPI, el índice de paquetes de Python (Python Package Index)</translation>
    </message>
    <message>
        <source>{reason}, only for pip in the new environment</source>
        <translation>{reason}, solo para pip en el nuevo entorno</translation>
    </message>
    <message>
        <source>where {host} sends the download on to</source>
        <extracomment>The ways reaching an index fails, as :class:`IndexAnswer` names them. What to set for a mirror of each kind of index (docs.astral.sh/uv/reference/environment/, pip.pypa.io/en/stable/topics/configuration/#environment-variables).</extracomment>
        <translation>adonde {host} reenvía la descarga</translation>
    </message>
    <message>
        <source>the name {hostname} cannot be looked up (DNS)</source>
        <extracomment>What failed, by the probe&apos;s failure kind (adapters/http.py, ``probe_index``).</extracomment>
        <translation>no se puede resolver el nombre {hostname} (DNS)</translation>
    </message>
    <message>
        <source>{host} refused the connection</source>
        <translation>{host} rechazó la conexión</translation>
    </message>
    <message>
        <source>{host} did not answer in time</source>
        <translation>{host} no respondió a tiempo</translation>
    </message>
    <message>
        <source>there is no network route to {host}</source>
        <translation>no hay ruta de red hasta {host}</translation>
    </message>
    <message>
        <source>the certificate {host} showed cannot be verified (TLS)</source>
        <translation>no se puede verificar el certificado que presentó {host} (TLS)</translation>
    </message>
    <message>
        <source>the proxy {proxy} does not let the request through</source>
        <translation>el proxy {proxy} no deja pasar la solicitud</translation>
    </message>
    <message>
        <source>the proxy {proxy} asks for a login (HTTP 407)</source>
        <translation>el proxy {proxy} pide iniciar sesión (HTTP 407)</translation>
    </message>
    <message>
        <source>it answered HTTP {status}</source>
        <translation>respondió HTTP {status}</translation>
    </message>
    <message>
        <source>it answers</source>
        <translation>responde</translation>
    </message>
    <message>
        <source>it did not answer</source>
        <translation>no respondió</translation>
    </message>
    <message>
        <source>your mirror of Python builds, from {origin}: uv downloads Python {python} there, none is installed here</source>
        <extracomment>Where python-build-standalone&apos;s builds are published (GitHub release assets). Astral&apos;s mirror of those releases, which recent uv releases try first. The person&apos;s mirror of python-build-standalone&apos;s builds (it replaces :data:`PBS_GITHUB`). The person&apos;s mirror of everything uv fetches from releases.astral.sh. The builds&apos; source when the person set no mirror: uv&apos;s own choice. Where python.org&apos;s installers are, by OS family (the ways forward name them).</extracomment>
        <translation>su espejo de compilaciones de Python, desde {origin}: uv descarga Python {python} de ahí, no hay ninguno instalado aquí</translation>
    </message>
    <message>
        <source>uv downloads Python {python} from there (a python-build-standalone build): none is installed here</source>
        <translation>uv descarga Python {python} de ahí (una compilación de python-build-standalone): no hay ninguno instalado aquí</translation>
    </message>
    <message>
        <source>GitHub&apos;s copy of the same build, which uv tries when {host} does not answer</source>
        <translation>la copia de GitHub de la misma compilación, que uv prueba cuando {host} no responde</translation>
    </message>
</context>
<context>
    <name>reasons</name>
    <message>
        <source>The wheel brings CUDA {cuda} and cuDNN {cudnn}: only the NVIDIA driver is needed.</source>
        <translation>La wheel trae CUDA {cuda} y cuDNN {cudnn}: solo se necesita el controlador de NVIDIA.</translation>
    </message>
    <message>
        <source>The wheel brings CUDA {cuda}: only the NVIDIA driver is needed.</source>
        <translation>La wheel trae CUDA {cuda}: solo se necesita el controlador de NVIDIA.</translation>
    </message>
    <message>
        <source>PyTorch calls its CUDA {cuda} build of this release experimental.</source>
        <translation>PyTorch considera experimental su compilación CUDA {cuda} de esta versión.</translation>
    </message>
    <message>
        <source>{package} {spec} resolves to {version} (the data&apos;s resolution of {day}), which no longer supports compute capability {capabilities}: the plan pins {package}{pin}, in the environment&apos;s constraints too.</source>
        <translation>{package} {spec} se resuelve a {version} (la resolución registrada en los datos el {day}), que ya no admite la capacidad de cómputo {capabilities}: el plan fija {package}{pin}, también en las restricciones del entorno.</translation>
    </message>
    <message>
        <source>{package} {spec} resolves to {version} today ({day}), which no longer supports compute capability {capabilities}: the plan pins {package}{pin}, in the environment&apos;s constraints too.</source>
        <translation>{package} {spec} se resuelve hoy ({day}) a {version}, que ya no admite la capacidad de cómputo {capabilities}: el plan fija {package}{pin}, también en las restricciones del entorno.</translation>
    </message>
    <message>
        <source>tensorflow[and-cuda] brings CUDA {cuda} and cuDNN {cudnn} as pip packages.</source>
        <translation>tensorflow[and-cuda] trae CUDA {cuda} y cuDNN {cudnn} como paquetes de pip.</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s CUDA {runtime} and cuDNN {cudnn_runtime} wheels bring the DLLs into the environment, and it finds them however its Python is started: only the driver is needed, no CUDA toolkit, cuDNN download or PATH change.</source>
        <translation>Los wheels de CUDA {runtime} y cuDNN {cudnn_runtime} de NVIDIA traen las DLL al entorno, y este las encuentra se inicie como se inicie su Python: solo hace falta el controlador, sin CUDA Toolkit, descarga de cuDNN ni cambios en PATH.</translation>
    </message>
    <message>
        <source>TensorFlow {version} was built with CUDA {cuda} and cuDNN {cudnn}: it runs on a later CUDA 11 runtime (NVIDIA&apos;s minor version compatibility) and accepts cuDNN {cudnn_runtime} (same major version, equal or higher minor: its own check when it loads cuDNN).</source>
        <translation>TensorFlow {version} se compiló con CUDA {cuda} y cuDNN {cudnn}: funciona con un runtime de CUDA 11 posterior (compatibilidad de versiones menores de NVIDIA) y acepta cuDNN {cudnn_runtime} (misma versión principal, secundaria igual o superior: es la comprobación que hace el propio TensorFlow al cargar cuDNN).</translation>
    </message>
    <message>
        <source>conda-forge supplies CUDA {cuda} and cuDNN {cudnn} inside the environment: no PATH changes.</source>
        <translation>conda-forge proporciona CUDA {cuda} y cuDNN {cudnn} dentro del entorno: sin cambios en PATH.</translation>
    </message>
    <message>
        <source>Needs CUDA {cuda} and cuDNN {cudnn} installed on the system and on PATH.</source>
        <translation>Necesita CUDA {cuda} y cuDNN {cudnn} instalados en el sistema y en PATH.</translation>
    </message>
    <message>
        <source>Needs CUDA {cuda} and cuDNN {cudnn} installed on the system.</source>
        <translation>Necesita CUDA {cuda} y cuDNN {cudnn} instalados en el sistema.</translation>
    </message>
    <message>
        <source>Runs on the CPU: no NVIDIA driver or CUDA needed.</source>
        <translation>Se ejecuta en la CPU: no necesita controlador de NVIDIA ni CUDA.</translation>
    </message>
    <message>
        <source>{gpu}: compute capability unknown, not checked against this build.</source>
        <translation>{gpu}: capacidad de cómputo desconocida, no se comprobó con esta compilación.</translation>
    </message>
    <message>
        <source>{gpu} (compute capability {capability}) is covered by this build ({archs}).</source>
        <translation>{gpu} (capacidad de cómputo {capability}) está cubierta por esta compilación ({archs}).</translation>
    </message>
    <message>
        <source>{gpu} (compute capability {capability}) runs this build&apos;s PTX {ptx}, compiled at first use.</source>
        <translation>{gpu} (capacidad de cómputo {capability}) ejecuta el PTX {ptx} de esta compilación, compilado en el primer uso.</translation>
    </message>
    <message>
        <source>Needs an NVIDIA driver {minimum} or newer ({os}); none answers now.</source>
        <translation>Necesita un controlador de NVIDIA {minimum} o posterior ({os}); ahora no responde ninguno.</translation>
    </message>
    <message>
        <source>Driver {driver} is at least the {minimum} that CUDA {cuda} builds need on {os}.</source>
        <translation>El controlador {driver} es al menos el {minimum} que necesitan las compilaciones CUDA {cuda} en {os}.</translation>
    </message>
    <message>
        <source>Needs driver {minimum} or newer on {os}; this machine has {driver}.</source>
        <translation>Necesita el controlador {minimum} o posterior en {os}; esta máquina tiene {driver}.</translation>
    </message>
    <message>
        <source>The highest CUDA of driver {driver} ({cuda_max}) was derived from NVIDIA&apos;s toolkit-driver table.</source>
        <translation>La versión de CUDA más alta del controlador {driver} ({cuda_max}) se dedujo de la tabla de toolkit y controlador de NVIDIA.</translation>
    </message>
    <message>
        <source>With a driver {minimum} or newer, {plan} becomes possible.</source>
        <translation>Con un controlador {minimum} o posterior, {plan} pasa a ser posible.</translation>
    </message>
    <message>
        <source>PyTorch comes from pip inside the conda environment: the pytorch conda channel ended at {last}.</source>
        <translation>PyTorch se instala desde pip dentro del entorno de conda: el canal pytorch de conda terminó en {last}.</translation>
    </message>
    <message>
        <source>This is WSL 2: the NVIDIA driver is the Windows host&apos;s, and its minimum is a Windows driver version.</source>
        <translation>Esto es WSL 2: el controlador de NVIDIA es el del host Windows, y su mínimo es una versión de controlador de Windows.</translation>
    </message>
    <message>
        <source>WSL 2 gives CUDA to Linux from Windows build {minimum} on (Windows 10 21H2, or Windows 11); this Windows is build {build}: after a Windows update, current TensorFlow runs on this GPU inside WSL 2.</source>
        <translation>WSL 2 da CUDA a Linux a partir de la compilación {minimum} de Windows (Windows 10 21H2, o Windows 11); este Windows es la compilación {build}: tras una actualización de Windows, TensorFlow actual funciona en esta GPU dentro de WSL 2.</translation>
    </message>
    <message>
        <source>To stay on native Windows instead (no WSL), choose {framework} {minor}: {summary}.</source>
        <translation>Para quedarte en Windows nativo (sin WSL), elige {framework} {minor}: {summary}.</translation>
    </message>
    <message>
        <source>The index has {framework} {patch}, newer than the {known} the data knows: a patch release keeps its minor&apos;s builds, so it is used.</source>
        <translation>El índice tiene {framework} {patch}, más reciente que la {known} que conocen los datos: una versión de corrección conserva las compilaciones de su versión menor, así que se usa.</translation>
    </message>
    <message>
        <source>From PyPI: its {variant} build, a CUDA build that also runs on the CPU, several GB larger than the CPU build.</source>
        <translation>Desde PyPI: su compilación {variant}, una compilación CUDA que también funciona en la CPU, varios GB más grande que la compilación para CPU.</translation>
    </message>
    <message>
        <source>{gpu} is not used: the plan runs on {device}.</source>
        <translation>No se usa {gpu}: el plan se ejecuta en {device}.</translation>
    </message>
    <message>
        <source>{gpu} ({target}) is covered by this build (it carries {targets}).</source>
        <extracomment>Added for an integrated GPU: a discrete one of any kind comes first.</extracomment>
        <translation>{gpu} ({target}) está cubierta por esta compilación (incluye {targets}).</translation>
    </message>
    <message>
        <source>The wheel brings the ROCm {rocm} libraries: only the amdgpu kernel driver and access to /dev/kfd are needed.</source>
        <translation>La wheel trae las bibliotecas de ROCm {rocm}: solo se necesitan el controlador del kernel amdgpu y acceso a /dev/kfd.</translation>
    </message>
    <message>
        <source>{gpu} ({family}) is served by PyTorch&apos;s XPU build.</source>
        <translation>{gpu} ({family}) es compatible con la compilación XPU de PyTorch.</translation>
    </message>
    <message>
        <source>Needs Intel&apos;s graphics driver {minimum} or newer; this machine has {driver}.</source>
        <translation>Necesita el controlador de gráficos de Intel {minimum} o posterior; esta máquina tiene {driver}.</translation>
    </message>
    <message>
        <source>Intel&apos;s graphics driver {driver} is at least the {minimum} the XPU build needs.</source>
        <translation>El controlador de gráficos de Intel {driver} es al menos el {minimum} que necesita la compilación XPU.</translation>
    </message>
    <message>
        <source>Needs Intel&apos;s GPU driver: {minimum}.</source>
        <translation>Necesita el controlador de GPU de Intel: {minimum}.</translation>
    </message>
    <message>
        <source>PyTorch&apos;s macOS wheel drives the {gpu} through Metal (MPS), which needs macOS {minimum} or newer; this Mac has {macos}.</source>
        <translation>La wheel de PyTorch para macOS usa {gpu} a través de Metal (MPS), que necesita macOS {minimum} o posterior; este Mac tiene {macos}.</translation>
    </message>
    <message>
        <source>Runs inside WSL 2 ({distro}), which uses this GPU through the Windows driver.</source>
        <extracomment>The distribution installed when there is none: the newest Ubuntu LTS in WSL&apos;s online list (``wsl --list --online``), the one TensorFlow&apos;s pip guide tests (&quot;Ubuntu 16.04 or higher&quot;; NVIDIA&apos;s CUDA on WSL guide uses Ubuntu throughout). Where the wizard keeps what it makes inside a distribution (its Linux home there). Distributions that WSL lists but that are other programs&apos; engines, not a place for a person&apos;s environment: Docker Desktop&apos;s (docker-desktop, docker-desktop-data), Rancher Desktop&apos;s (rancher-desktop, rancher-desktop-data) and Podman&apos;s machines (podman-machine-default). What a route&apos;s state means, in the order a person meets them.</extracomment>
        <translation>Se ejecuta dentro de WSL 2 ({distro}), que usa esta GPU a través del controlador de Windows.</translation>
    </message>
    <message>
        <source>WSL is not installed. Before anything else changes, installing it (&apos;{command}&apos;) needs the administrator&apos;s consent and a download, and Windows may have to restart; the wizard goes on where it stopped.</source>
        <translation>WSL no está instalado. Antes de cualquier otro cambio, instalarlo (&apos;{command}&apos;) requiere el consentimiento del administrador y una descarga, y puede que Windows tenga que reiniciarse; el asistente continúa donde se detuvo.</translation>
    </message>
    <message>
        <source>WSL has no Linux distribution for the environment: &apos;{command}&apos; downloads {distro} first (no administrator needed).</source>
        <translation>WSL no tiene ninguna distribución de Linux para el entorno: &apos;{command}&apos; descarga primero {distro} (no se necesita administrador).</translation>
    </message>
    <message>
        <source>{distro} runs under WSL 1, which has no GPU: &apos;{command}&apos; converts it to WSL 2 first (its files are kept).</source>
        <translation>{distro} se ejecuta en WSL 1, que no tiene GPU: &apos;{command}&apos; primero la convierte a WSL 2 (sus archivos se conservan).</translation>
    </message>
    <message>
        <source>An installation of WSL waits for Windows to restart: restart, then go on.</source>
        <translation>Una instalación de WSL está esperando a que Windows se reinicie: reinicia y después continúa.</translation>
    </message>
    <message>
        <source>WSL 2 cannot start its virtual machine: turn virtualization on in the computer&apos;s firmware settings (Intel VT-x or AMD-V/SVM), run &apos;{command}&apos; as administrator for the Virtual Machine Platform feature, and restart Windows.</source>
        <translation>WSL 2 no puede iniciar su máquina virtual: activa la virtualización en la configuración del firmware del equipo (Intel VT-x o AMD-V/SVM), ejecuta &apos;{command}&apos; como administrador para la característica Plataforma de máquina virtual y reinicia Windows.</translation>
    </message>
    <message>
        <source>{distro}&apos;s first start asks you for a Linux user name and password (they need not match Windows&apos;).</source>
        <translation>El primer inicio de {distro} te pide un nombre de usuario y una contraseña de Linux (no tienen por qué coincidir con los de Windows).</translation>
    </message>
    <message>
        <source>This report does not say whether WSL is installed: detect again on this Windows machine to know what the route needs first.</source>
        <translation>Este informe no indica si WSL está instalado: vuelve a detectar en este equipo Windows para saber qué necesita primero la ruta.</translation>
    </message>
    <message>
        <source>WSL says virtualization is off: turn it on in the firmware settings (Intel VT-x or AMD-V/SVM) before WSL 2 can start.</source>
        <translation>WSL indica que la virtualización está desactivada: actívala en la configuración del firmware (Intel VT-x o AMD-V/SVM) para que WSL 2 pueda iniciarse.</translation>
    </message>
    <message>
        <source>Inside {distro}, the wizard keeps everything it makes under {home}: uv, Python and the environment (no sudo, and the distribution&apos;s own Python is left alone).</source>
        <translation>Dentro de {distro}, el asistente guarda todo lo que crea en {home}: uv, Python y el entorno (sin sudo, y el Python propio de la distribución no se modifica).</translation>
    </message>
</context>
<context>
    <name>stages</name>
    <message>
        <source>Importing {framework}…</source>
        <extracomment>Each stage in words (``import``&apos;s ``{framework}``: the framework&apos;s name).</extracomment>
        <translation>Importando {framework}…</translation>
    </message>
    <message>
        <source>Starting CUDA on the GPU…</source>
        <translation>Iniciando CUDA en la GPU…</translation>
    </message>
    <message>
        <source>Compiling the model for the GPU…</source>
        <extracomment>A stage on a named device, where that says more.</extracomment>
        <translation>Compilando el modelo para la GPU…</translation>
    </message>
    <message>
        <source>Compiling the model for the CPU…</source>
        <translation>Compilando el modelo para la CPU…</translation>
    </message>
    <message>
        <source>Compiling the model…</source>
        <translation>Compilando el modelo…</translation>
    </message>
    <message>
        <source>Making the training data…</source>
        <extracomment>Each phase in words; ``{device}`` is :data:`DEVICE_WORDS`&apos; words for the phase&apos;s device.</extracomment>
        <translation>Generando los datos de entrenamiento…</translation>
    </message>
    <message>
        <source>Warming up on {device}…</source>
        <translation>Calentando en {device}…</translation>
    </message>
    <message>
        <source>Training on {device}…</source>
        <translation>Entrenando en {device}…</translation>
    </message>
    <message>
        <source>Measuring the GPU&apos;s matrix multiply rate…</source>
        <translation>Midiendo la velocidad de multiplicación de matrices de la GPU…</translation>
    </message>
    <message>
        <source>Checking that the GPU and the CPU compute the same…</source>
        <translation>Comprobando que la GPU y la CPU calculan lo mismo…</translation>
    </message>
    <message>
        <source>the GPU</source>
        <extracomment>A phase&apos;s device in words; any other (or none) is &quot;the device&quot;.</extracomment>
        <translation>la GPU</translation>
    </message>
    <message>
        <source>the CPU</source>
        <translation>la CPU</translation>
    </message>
    <message>
        <source>the device</source>
        <translation>el dispositivo</translation>
    </message>
    <message>
        <source>Starting ROCm on the GPU…</source>
        <translation>Iniciando ROCm en la GPU…</translation>
    </message>
    <message>
        <source>Starting the Intel GPU runtime…</source>
        <translation>Iniciando el runtime de GPU de Intel…</translation>
    </message>
    <message>
        <source>Starting Metal on the GPU…</source>
        <translation>Iniciando Metal en la GPU…</translation>
    </message>
    <message>
        <source>A framework loads about a thousand modules and large native libraries; the next time is faster.</source>
        <translation>Un framework carga alrededor de mil módulos y grandes bibliotecas nativas; la próxima vez es más rápido.</translation>
    </message>
    <message>
        <source>The driver sets the GPU up for this program and loads the framework&apos;s GPU code.</source>
        <translation>El controlador prepara la GPU para este programa y carga el código de GPU del framework.</translation>
    </message>
    <message>
        <source>The first training steps prepare the model: the framework picks and tunes its kernels. The steps after them are quick.</source>
        <translation>Los primeros pasos de entrenamiento preparan el modelo: el framework elige y ajusta sus kernels. Los pasos siguientes son rápidos.</translation>
    </message>
</context>
<context>
    <name>usage</name>
    <message>
        <source>Open {distro}&apos;s shell from Windows</source>
        <translation>Abre el shell de {distro} desde Windows</translation>
    </message>
    <message>
        <source>Activate the environment in that shell</source>
        <translation>Activa el entorno en ese shell</translation>
    </message>
    <message>
        <source>Run a script of the current Windows folder with the environment&apos;s Python</source>
        <translation>Ejecuta un script de la carpeta actual de Windows con el Python del entorno</translation>
    </message>
    <message>
        <source>VS Code (with its WSL extension, ms-vscode-remote.remote-wsl)</source>
        <translation>VS Code (con su extensión de WSL, ms-vscode-remote.remote-wsl)</translation>
    </message>
    <message>
        <source>Then run &apos;Python: Select Interpreter&apos; and enter {python}.</source>
        <translation>Después, ejecuta &apos;Python: Select Interpreter&apos; e introduce {python}.</translation>
    </message>
    <message>
        <source>Jupyter, opened in the Windows browser</source>
        <translation>Jupyter, abierto en el navegador de Windows</translation>
    </message>
    <message>
        <source>Then open the http://localhost:8888/... address it prints in the Windows browser: WSL 2 passes localhost through.</source>
        <translation>Después, abre en el navegador de Windows la dirección http://localhost:8888/... que muestra: WSL 2 reenvía localhost.</translation>
    </message>
    <message>
        <source>PyCharm</source>
        <translation>PyCharm</translation>
    </message>
    <message>
        <source>Settings, Python Interpreter, Add Interpreter, On WSL: choose {distro}, then the existing interpreter {python}.</source>
        <translation>Settings, Python Interpreter, Add Interpreter, On WSL: elige {distro} y después el intérprete existente {python}.</translation>
    </message>
</context>
<context>
    <name>verdicts</name>
    <message>
        <source>the GPU trains, clearly faster than the CPU</source>
        <extracomment>The ``verdict`` of a test stopped before it finished: none of :data:`VERDICTS`, no judgement.</extracomment>
        <translation>la GPU entrena, claramente más rápido que la CPU</translation>
    </message>
    <message>
        <source>Your GPU trains.</source>
        <translation>Tu GPU entrena.</translation>
    </message>
    <message>
        <source>Your GPU trains, {speedup}× faster than the CPU.</source>
        <translation>Tu GPU entrena, {speedup}× más rápido que la CPU.</translation>
    </message>
    <message>
        <source>the GPU trains, but not clearly faster than the CPU</source>
        <translation>la GPU entrena, pero no claramente más rápido que la CPU</translation>
    </message>
    <message>
        <source>training works on the CPU only</source>
        <translation>el entrenamiento solo funciona en la CPU</translation>
    </message>
    <message>
        <source>training does not work in this environment</source>
        <translation>el entrenamiento no funciona en este entorno</translation>
    </message>
    <message>
        <source>the test was stopped before it finished</source>
        <translation>la prueba se detuvo antes de terminar</translation>
    </message>
    <message>
        <source>The test was stopped before it finished: no verdict.</source>
        <translation>La prueba se detuvo antes de terminar: sin veredicto.</translation>
    </message>
    <message>
        <source>Your GPU trains, but not clearly faster than the CPU.</source>
        <translation>Tu GPU entrena, pero no claramente más rápido que la CPU.</translation>
    </message>
    <message>
        <source>Your GPU trains, but only {speedup}× faster than the CPU.</source>
        <translation>Tu GPU entrena, pero solo {speedup}× más rápido que la CPU.</translation>
    </message>
    <message>
        <source>Training works on the CPU only.</source>
        <translation>El entrenamiento solo funciona en la CPU.</translation>
    </message>
    <message>
        <source>Training does not work in this environment.</source>
        <translation>El entrenamiento no funciona en este entorno.</translation>
    </message>
</context>
<context>
    <name>verify_checks</name>
    <message>
        <source>NVIDIA driver</source>
        <extracomment>What each kind of check looks at, as a title; ``{subject}`` is the environment or the folder.</extracomment>
        <translation>Controlador de NVIDIA</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>{subject}: Python runs</source>
        <translation>{subject}: Python se ejecuta</translation>
    </message>
    <message>
        <source>{subject}: the framework imports</source>
        <translation>{subject}: el framework se importa</translation>
    </message>
    <message>
        <source>{subject}: framework build</source>
        <translation>{subject}: compilación del framework</translation>
    </message>
    <message>
        <source>{subject}: the build is pinned</source>
        <translation>{subject}: la compilación está fijada</translation>
    </message>
    <message>
        <source>{subject}: GPUs the framework sees</source>
        <translation>{subject}: GPU que ve el framework</translation>
    </message>
    <message>
        <source>{subject}: NVIDIA CUDA wheels</source>
        <translation>{subject}: wheels de CUDA de NVIDIA</translation>
    </message>
    <message>
        <source>{subject}: short training test</source>
        <translation>{subject}: prueba breve de entrenamiento</translation>
    </message>
    <message>
        <source>PATH: {subject}</source>
        <translation>PATH: {subject}</translation>
    </message>
</context>
<context>
    <name>verify_phases</name>
    <message>
        <source>Looking at this machine…</source>
        <extracomment>The steps of a verification: the machine, then per environment its checks and its short live test, then the PATH folders the wizard added. How a verification ended: every check ran, the person stopped it, or the wizard had set nothing up here to verify. The translation context of :data:`PHASE_WORDS`. The translation context of :data:`CHECK_WORDS`. Each phase as a line under way; ``{subject}`` is the environment.</extracomment>
        <translation>Examinando esta máquina…</translation>
    </message>
    <message>
        <source>Checking the environment {subject}…</source>
        <translation>Comprobando el entorno {subject}…</translation>
    </message>
    <message>
        <source>Training a small network in {subject}…</source>
        <translation>Entrenando una red pequeña en {subject}…</translation>
    </message>
    <message>
        <source>Checking PATH…</source>
        <translation>Comprobando PATH…</translation>
    </message>
</context>
<context>
    <name>verify_values</name>
    <message>
        <source>{pin} (installed: {installed})</source>
        <extracomment>The translation context of the values in words a check reports (&quot;2 GPUs (…)&quot;): the Verify page shows them in the interface&apos;s language; ``--json`` keeps the English. The keys of the env probe&apos;s answer (``probes/env_report.py``) that :func:`observe_environment` reads: what a recorded answer must keep to be observed again as the probe&apos;s own. A key read there and missing here would make a reused answer differ from a fresh one (tests/core/health/test_probe_reuse.py checks the two agree on real answers).</extracomment>
        <translation>{pin} (instalado: {installed})</translation>
    </message>
    <message>
        <source>{pin} ({tools} not pointed at it)</source>
        <translation>{pin} ({tools} no apunta a él)</translation>
    </message>
    <message>
        <source>1 GPU ({names})</source>
        <translation>1 GPU ({names})</translation>
    </message>
    <message>
        <source>{count} GPUs ({names})</source>
        <translation>{count} GPU ({names})</translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation>1 GPU</translation>
    </message>
    <message>
        <source>{count} GPUs</source>
        <translation>{count} GPU</translation>
    </message>
</context>
<context>
    <name>wheel_folder</name>
    <message>
        <source>Holds {build} for Python {python} ({size}); it needs nothing else.</source>
        <extracomment>The index pip falls back to for what a framework&apos;s own index does not mirror (ipykernel and the packages a person adds): PyPI&apos;s simple API (pip.pypa.io/en/stable/cli/pip_install/, &quot;--extra-index-url&quot;).</extracomment>
        <translation>Contiene {build} para Python {python} ({size}); no necesita nada más.</translation>
    </message>
    <message>
        <source>Holds {build}, {extras} and everything they need for Python {python}: {count} wheels, {size}.</source>
        <translation>Contiene {build}, {extras} y todo lo que necesitan para Python {python}: {count} wheels, {size}.</translation>
    </message>
    <message>
        <source>Holds {build} and everything it needs for Python {python}: {count} wheels, {size}.</source>
        <translation>Contiene {build} y todo lo que necesita para Python {python}: {count} wheels, {size}.</translation>
    </message>
    <message>
        <source>The folder could not be checked; the install will say what is missing.</source>
        <translation>No se pudo comprobar la carpeta; la instalación indicará qué falta.</translation>
    </message>
    <message>
        <source>This folder cannot install {build} for Python {python} on {platform}.</source>
        <translation>Esta carpeta no puede instalar {build} para Python {python} en {platform}.</translation>
    </message>
    <message>
        <source>The fetch command downloads from PyPI: run it here if this machine reaches pypi.org, else on one that does.</source>
        <translation>El comando de descarga descarga desde PyPI: ejecútelo aquí si esta máquina llega a pypi.org; si no, en una que llegue.</translation>
    </message>
    <message>
        <source>The fetch command downloads from {index} ({build} is not on PyPI): run it on a machine that reaches {host}.</source>
        <translation>El comando de descarga descarga desde {index} ({build} no está en PyPI): ejecútelo en una máquina que llegue a {host}.</translation>
    </message>
    <message>
        <source>Its {name} wheel is for {theirs}, not {ours}.</source>
        <extracomment>The longest fetch command :func:`download_command` writes, not counting the folder&apos;s path (named twice at most): a line a person can read and copy (issue 41, point 8: it was 400).</extracomment>
        <translation>Su wheel de {name} es para {theirs}, no para {ours}.</translation>
    </message>
    <message>
        <source>Its {count} {name} wheels are for {theirs}, not {ours}.</source>
        <translation>Sus {count} wheels de {name} son para {theirs}, no para {ours}.</translation>
    </message>
    <message>
        <source>It has no {name} wheel at all (the plan needs {build}).</source>
        <translation>No tiene ningún wheel de {name} (el plan necesita {build}).</translation>
    </message>
    <message>
        <source>Its {name} {found} would be installed, not the plan&apos;s {build}: remove that wheel and add the plan&apos;s.</source>
        <translation>Se instalaría su {name} {found} en lugar de {build}, que es lo que pide el plan: quita ese wheel y añade el del plan.</translation>
    </message>
    <message>
        <source>It has {name} {found}, not {build}.</source>
        <translation>Tiene {name} {found}, no {build}.</translation>
    </message>
    <message>
        <source>Its {name} {found} will be installed rather than the plan&apos;s {build}: it runs on the CPU too, but is a larger download.</source>
        <translation>Se instalará su {name} {found} en lugar de {build}, que es lo que pide el plan: también funciona en la CPU, pero la descarga es mayor.</translation>
    </message>
    <message>
        <source>It has no wheel of {names}, which the plan&apos;s packages need.</source>
        <translation>No tiene ningún wheel de {names}, que necesitan los paquetes del plan.</translation>
    </message>
    <message>
        <source>The installer found no way to install from it: {message}</source>
        <translation>El instalador no encontró forma de instalar desde ella: {message}</translation>
    </message>
    <message>
        <source>Checking it failed: {message}</source>
        <translation>La comprobación falló: {message}</translation>
    </message>
</context>
</TS>
