; The GPU Setup Wizard's installer (issue 9), compiled by installer/build.py:
;   makensis -DVERSION=0.1.0 -DVI_VERSION=0.1.0.0 -DAPP_DIR=<PyInstaller folder> -DICON=<.ico>
;            -DBITMAP=<164x314 .bmp> -DOUT_FILE=<gpuwizard-setup-0.1.0.exe>
;            [-DCOMPRESSION=zlib] installer/gpuwizard.nsi
;
; Per user by default: into %LOCALAPPDATA%\Programs\GPU Setup Wizard, registered under HKCU, no
; administrator rights and no UAC prompt (RequestExecutionLevel user; the folder Windows itself
; suggests for per-user programs, FOLDERID_UserProgramFiles:
; https://learn.microsoft.com/en-us/windows/win32/shell/knownfolderid).
; For all users with /ALLUSERS: into Program Files, registered under HKLM; that needs an
; administrator, so an unelevated installer starts itself again through UAC ("runas").
;
; Command line (NSIS's own: /S silent, /D=DIR the folder, last and unquoted):
;   setup.exe [/S] [/ALLUSERS] [/NOPATH | /ADDTOPATH] [/D=DIR]
;   uninstall.exe [/S] [/ALLUSERS] [/UNDOPATH] [/REMOVEDATA]
;
; PATH (issue 37): the option "Add gpuwizard to PATH" (the components page) puts the program
; folder on PATH with the wizard's own journaled editor (`gpuwizard path add DIR --scope S`), so
; that `gpuwizard` runs in any new Command Prompt. On by default for one user (the user PATH;
; /NOPATH: off); off by default for all users (/ADDTOPATH: the system PATH, which that elevated
; install may write). An upgrade keeps the earlier install's choice unless a switch says
; otherwise. The folder it added is recorded in the uninstall key (PathEntry, PathScope) only when
; the add wrote it (not when it was on PATH already), and the uninstaller takes away exactly that
; (`gpuwizard path remove`, journaled too), whatever it is told about the wizard's other PATH
; changes.
;
; The uninstaller asks whether to undo the wizard's PATH changes (`gpuwizard path undo --all`;
; silent: only with /UNDOPATH), and whether to remove the environments the wizard made and its
; data, with their size (keep is the default; silent: kept unless /REMOVEDATA). It removes only
; what the wizard made: the environments its registry records and whose folders carry its marker
; (`gpuwizard env remove --all`), and the wizard's own files in its data folder, then that folder
; if nothing else is left in it.
;
; The wizard's own data (PATH journal, last good snapshot, environments list, envs\ ...) lives
; in %LOCALAPPDATA%\gpuwizard or GPUWIZARD_HOME (gpuwizard.workflow.state.home), never in the
; program folder: installing over an older version keeps it (docs/architecture.md, "State under
; GPUWIZARD_HOME", lists the files).
;
; Neither replaces or removes a file while the wizard runs from this folder: both ask the person
; to close it (Retry/Cancel); silent, they stop with exit code 32 (ERROR_SHARING_VIOLATION) and
; change nothing.

Target amd64-unicode
RequestExecutionLevel user
ManifestDPIAware true
; build.py passes the compressor: `/SOLID lzma` for releases, `zlib` or `off` (stored, not
; compressed: the quickest to pack and to unpack) for test builds.
!ifndef COMPRESSION
  !define COMPRESSION "/SOLID lzma"
!endif
!if "${COMPRESSION}" == "off"
  SetCompress off
!else
  SetCompressor ${COMPRESSION}
!endif
!ifdef DICT_MB
  SetCompressorDictSize ${DICT_MB}
!endif

!include MUI2.nsh
!include LogicLib.nsh
!include FileFunc.nsh
!include WordFunc.nsh
!include Sections.nsh

!define APP_NAME "GPU Setup Wizard"
!define APP_ID "gpuwizard"
!define PUBLISHER "GPU Setup Wizard developers"
; Add/Remove Programs reads this key, in HKCU for one user and HKLM for all
; (https://learn.microsoft.com/en-us/windows/win32/msi/uninstall-registry-key).
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_ID}"
!define PER_USER_DIR "$LOCALAPPDATA\Programs\${APP_NAME}"
!define ALL_USERS_DIR "$PROGRAMFILES64\${APP_NAME}"
!define SHORTCUT "$SMPROGRAMS\${APP_NAME}.lnk"
!define JOURNAL_NAME "path-journal.json"
; ERROR_ELEVATION_REQUIRED (winerror.h): the exit code when UAC was needed and refused.
!define ERROR_ELEVATION_REQUIRED 740
; ERROR_SHARING_VIOLATION (winerror.h): the exit code when the wizard runs and was not closed.
!define ERROR_SHARING_VIOLATION 32

Name "${APP_NAME}"
OutFile "${OUT_FILE}"

; Code signing (issue 37, point 10; docs/signing.md): with -DSIGN_COMMAND=<command>, makensis runs
; the command on the uninstaller as it writes it into the installer (!uninstfinalize, NSIS 3.08+;
; WriteUninstaller then writes that signed copy at install time) and on the finished installer
; (!finalize). NSIS replaces %1 with the file, so the command names it as "%1"; a command that
; does not exit 0 stops the build. https://nsis.sourceforge.io/Reference/!finalize,
; https://nsis.sourceforge.io/Signing_an_Uninstaller_externally
!ifdef SIGN_COMMAND
  !uninstfinalize '${SIGN_COMMAND}' = 0
  !finalize '${SIGN_COMMAND}' = 0
!endif
InstallDir "${PER_USER_DIR}"
BrandingText "${APP_NAME} ${VERSION}"

VIProductVersion "${VI_VERSION}"
VIAddVersionKey "ProductName" "${APP_NAME}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP_NAME} ${VERSION} setup"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "LegalCopyright" "MIT License"

Var AllUsers      ; "1": for all users (HKLM, Program Files)
Var PathScope     ; "user" or "system": the PATH the option adds the program folder to
Var UndoPath      ; "1": the uninstaller undoes the wizard's PATH changes
Var RemoveData    ; "1": the uninstaller removes the wizard's environments and data
Var Home          ; the wizard's data folder of the user who runs the (un)installer
Var Journal       ; the PATH journal in it
Var PathUndone    ; "1": `path undo --all` succeeded (the journal has nothing left to undo)

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_WELCOMEFINISHPAGE_BITMAP "${BITMAP}"
!define MUI_UNWELCOMEFINISHPAGE_BITMAP "${BITMAP}"
!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_SMALLDESC
!define MUI_FINISHPAGE_RUN "$INSTDIR\gpuwizardw.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Open the ${APP_NAME}"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_UNPAGE_FINISH
!insertmacro MUI_LANGUAGE "English"

; Leaves "admin" or another account type on the stack (UserInfo plug-in; an unelevated
; administrator under UAC is not "admin").
!macro IS_ADMIN RESULT
  UserInfo::GetAccountType
  Pop ${RESULT}
!macroend

; The wizard's data folder (gpuwizard.workflow.state.home.wizard_home) into $Home, $Journal;
; read before the context may switch to all users, so that it is the running user's.
!macro FIND_HOME
  ReadEnvStr $Home "GPUWIZARD_HOME"
  ${If} $Home == ""
    StrCpy $Home "$LOCALAPPDATA\${APP_ID}"
  ${EndIf}
  StrCpy $Journal "$Home\${JOURNAL_NAME}"
!macroend

; Waits until no program of this folder runs: Windows refuses to open a running program for
; writing (its image is mapped), so a program that cannot be opened so is running (the wizard,
; its command line or conda engine, or the uv it started). Opening it for appending changes
; nothing. The person is asked to close it (Retry/Cancel); Cancel, and /S, end here with
; ERROR_SHARING_VIOLATION before anything was changed.
!macro WAIT_UNTIL_CLOSED UN
Function ${UN}WaitUntilClosed
  retry:
  StrCpy $R9 ""
  ${ForEach} $R8 1 3 + 1
    ${Select} $R8
      ${Case} 1
        StrCpy $R7 "gpuwizardw.exe"
      ${Case} 2
        StrCpy $R7 "gpuwizard.exe"
      ${CaseElse}
        StrCpy $R7 "uv.exe"
    ${EndSelect}
    ${If} ${FileExists} "$INSTDIR\$R7"
      ClearErrors
      FileOpen $R6 "$INSTDIR\$R7" a
      ${If} ${Errors}
        StrCpy $R9 $R7
        ${Break}
      ${EndIf}
      FileClose $R6
    ${EndIf}
  ${Next}
  ${If} $R9 != ""
    DetailPrint "$INSTDIR\$R9 is running."
    MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION \
      "The ${APP_NAME} is running ($R9).$\r$\n$\r$\nClose it, then choose Retry. Cancel stops here and changes nothing." \
      /SD IDCANCEL IDRETRY retry
    SetErrorLevel ${ERROR_SHARING_VIOLATION}
    Quit
  ${EndIf}
FunctionEnd
!macroend
!insertmacro WAIT_UNTIL_CLOSED ""
!insertmacro WAIT_UNTIL_CLOSED "un."

; Takes the folder an earlier install put on PATH (PathEntry in the uninstall key) away again,
; through the wizard's journal, and forgets it once it is gone. $INSTDIR\gpuwizard.exe must exist.
!macro REMOVE_OWN_PATH_ENTRY UN
Function ${UN}RemoveOwnPathEntry
  ReadRegStr $R1 SHCTX "${UNINSTALL_KEY}" "PathEntry"
  ReadRegStr $R2 SHCTX "${UNINSTALL_KEY}" "PathScope"
  ${If} $R1 == ""
    Return
  ${EndIf}
  ${If} $R2 != "system"
    StrCpy $R2 "user"
  ${EndIf}
  DetailPrint "Taking $R1 off the $R2 PATH..."
  nsExec::ExecToLog '"$INSTDIR\gpuwizard.exe" path remove "$R1" --scope $R2'
  Pop $R0
  ${If} $R0 == 0
    DeleteRegValue SHCTX "${UNINSTALL_KEY}" "PathEntry"
    DeleteRegValue SHCTX "${UNINSTALL_KEY}" "PathScope"
  ${Else}
    DetailPrint "$R1 is still on the $R2 PATH (exit $R0): remove it in Settings, System, About, Advanced system settings, Environment Variables."
    ${IfNot} ${Silent}
      MessageBox MB_OK|MB_ICONEXCLAMATION \
        "$R1 could not be taken off your $R2 PATH; the details say why.$\r$\n$\r$\nRemove it by hand: Settings, System, About, Advanced system settings, Environment Variables."
    ${EndIf}
  ${EndIf}
FunctionEnd
!macroend
!insertmacro REMOVE_OWN_PATH_ENTRY ""
!insertmacro REMOVE_OWN_PATH_ENTRY "un."

Section "${APP_NAME}" SectionProgram
  SectionIn RO
  Call WaitUntilClosed
  SetOutPath "$INSTDIR"
  ; An earlier version's program files go first, so that none of them outlives the upgrade.
  ; Only what this installer puts here is removed (never the folder as a whole: it may be one
  ; the user chose and keeps other things in).
  RMDir /r "$INSTDIR\_internal"
  File /r "${APP_DIR}\*"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "${SHORTCUT}" "$INSTDIR\gpuwizardw.exe" "" "$INSTDIR\gpuwizardw.exe" 0 \
    SW_SHOWNORMAL "" "Detect the GPU, recommend a framework set, install it and prove it trains"

  StrCpy $R0 ""
  ${If} $AllUsers == 1
    StrCpy $R0 " /ALLUSERS"
  ${EndIf}
  WriteRegStr SHCTX "${UNINSTALL_KEY}" "DisplayName" "${APP_NAME}"
  WriteRegStr SHCTX "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr SHCTX "${UNINSTALL_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr SHCTX "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr SHCTX "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\gpuwizardw.exe,0"
  WriteRegStr SHCTX "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"$R0'
  WriteRegStr SHCTX "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S$R0'
  WriteRegDWORD SHCTX "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD SHCTX "${UNINSTALL_KEY}" "NoRepair" 1
  ; EstimatedSize is in KiB.
  ${GetSize} "$INSTDIR" "/S=0K" $R1 $R2 $R3
  WriteRegDWORD SHCTX "${UNINSTALL_KEY}" "EstimatedSize" $R1
SectionEnd

Section "Add gpuwizard to PATH" SectionPath
  ; The work is done by the hidden section below, which runs whether this one is chosen or not.
SectionEnd

Section "-PATH"
  ReadRegStr $R1 SHCTX "${UNINSTALL_KEY}" "PathEntry"
  ReadRegStr $R2 SHCTX "${UNINSTALL_KEY}" "PathScope"
  ; What an earlier install added goes when the option is off now, or names another folder or PATH.
  ${If} $R1 != ""
    ${IfNot} ${SectionIsSelected} ${SectionPath}
    ${OrIf} $R1 != $INSTDIR
    ${OrIf} $R2 != $PathScope
      Call RemoveOwnPathEntry
    ${EndIf}
  ${EndIf}
  ${If} ${SectionIsSelected} ${SectionPath}
    WriteRegDWORD SHCTX "${UNINSTALL_KEY}" "AddToPath" 1
    DetailPrint "Adding $INSTDIR to the $PathScope PATH..."
    ; Idempotent: a folder already on PATH is left where it is, and nothing is journaled.
    nsExec::ExecToStack '"$INSTDIR\gpuwizard.exe" path add "$INSTDIR" --scope $PathScope --json'
    Pop $R0
    Pop $R3
    ${If} $R0 == 0
      ; Recorded only when this add wrote it: a folder the person had put on PATH is theirs.
      ; ("written" is among the first fields of gpuwizard.path-change/1, before any long value.)
      ClearErrors
      ${WordFind} $R3 '"written": true' "E#" $R4
      ${IfNot} ${Errors}
        WriteRegStr SHCTX "${UNINSTALL_KEY}" "PathEntry" "$INSTDIR"
        WriteRegStr SHCTX "${UNINSTALL_KEY}" "PathScope" "$PathScope"
      ${EndIf}
      DetailPrint "gpuwizard is on the $PathScope PATH: it runs in any Command Prompt opened from now on."
    ${Else}
      DetailPrint "$INSTDIR was not added to PATH (exit $R0): $R3"
      ${IfNot} ${Silent}
        MessageBox MB_OK|MB_ICONEXCLAMATION \
          "gpuwizard could not be added to your PATH; the details say why.$\r$\n$\r$\nThe wizard is installed: run the command line as $\"$INSTDIR\gpuwizard.exe$\"."
      ${EndIf}
    ${EndIf}
  ${Else}
    WriteRegDWORD SHCTX "${UNINSTALL_KEY}" "AddToPath" 0
  ${EndIf}
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SectionProgram} \
    "The wizard (Start menu: ${APP_NAME}) and its command line, gpuwizard.exe."
  !insertmacro MUI_DESCRIPTION_TEXT ${SectionPath} \
    "Run gpuwizard from any new Command Prompt. Added with the wizard's own PATH journal; the uninstaller takes it away."
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; After the sections: it chooses whether the PATH option starts selected.
Function .onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/ALLUSERS" $R1
  ${IfNot} ${Errors}
    StrCpy $AllUsers 1
  ${EndIf}
  ; /D=DIR, when given, has already replaced the default folder.
  StrCpy $R2 0
  ${If} $INSTDIR == "${PER_USER_DIR}"
    StrCpy $R2 1
  ${EndIf}
  StrCpy $PathScope "user"
  StrCpy $R5 1  ; on PATH: yes for one user
  ${If} $AllUsers == 1
    !insertmacro IS_ADMIN $R3
    ${If} $R3 != "admin"
      ; Start again with an administrator token (UAC), with the same options; this one ends.
      ExecShellWait "runas" "$EXEPATH" "$R0"
      SetErrorLevel ${ERROR_ELEVATION_REQUIRED}
      Quit
    ${EndIf}
    SetShellVarContext all
    ${If} $R2 == 1
      StrCpy $INSTDIR "${ALL_USERS_DIR}"
    ${EndIf}
    StrCpy $PathScope "system"
    StrCpy $R5 0  ; the system PATH of every user: only when asked
  ${EndIf}
  ; Installing over an earlier version: into its folder, unless /D says otherwise; and with its
  ; PATH choice (an earlier version without one never put the folder on PATH: the default).
  ReadRegStr $R4 SHCTX "${UNINSTALL_KEY}" "InstallLocation"
  ${If} $R4 != ""
  ${AndIf} $R2 == 1
    StrCpy $INSTDIR $R4
  ${EndIf}
  ClearErrors
  ReadRegDWORD $R4 SHCTX "${UNINSTALL_KEY}" "AddToPath"
  ${IfNot} ${Errors}
    StrCpy $R5 $R4
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/ADDTOPATH" $R1
  ${IfNot} ${Errors}
    StrCpy $R5 1
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/NOPATH" $R1
  ${IfNot} ${Errors}
    StrCpy $R5 0
  ${EndIf}
  ${If} $R5 == 1
    !insertmacro SelectSection ${SectionPath}
  ${Else}
    !insertmacro UnselectSection ${SectionPath}
  ${EndIf}
  ${If} $PathScope == "system"
    SectionSetText ${SectionPath} "Add gpuwizard to the system PATH"
  ${EndIf}
  !insertmacro FIND_HOME
FunctionEnd

; $R0 <- a size in KiB ($R0) as people read it: "830 KB", "12 MB", "4.2 GB".
Function un.SizeText
  ${If} $R0 < 1024
    StrCpy $R0 "$R0 KB"
  ${ElseIf} $R0 < 1048576
    IntOp $R0 $R0 / 1024
    StrCpy $R0 "$R0 MB"
  ${Else}
    IntOp $R0 $R0 / 1024
    IntOp $R1 $R0 / 1024
    IntOp $R2 $R0 % 1024
    IntOp $R2 $R2 * 10
    IntOp $R2 $R2 / 1024
    StrCpy $R0 "$R1.$R2 GB"
  ${EndIf}
FunctionEnd

; The wizard's own files in $Home (docs/architecture.md, "State under GPUWIZARD_HOME"), each with
; its lock, its damaged copy (.bad) and a killed writer's temporary copy (.NAME-XXXXXXXX...).
!macro DELETE_STATE_FILE FOLDER STEM EXT
  Delete "${FOLDER}\${STEM}.${EXT}"
  Delete "${FOLDER}\${STEM}.${EXT}.lock"
  Delete "${FOLDER}\${STEM}.${EXT}.bad"
  Delete "${FOLDER}\.${STEM}-*.${EXT}"
!macroend

Function un.RemoveData
  DetailPrint "Removing the environments the ${APP_NAME} made..."
  ; Each one recorded in its registry whose folder carries its marker; others are kept and said.
  nsExec::ExecToLog '"$INSTDIR\gpuwizard.exe" env remove --all'
  Pop $R0
  ${If} $R0 != 0
    DetailPrint "Some environments were kept (exit $R0): the lines above say which and why."
  ${EndIf}
  DetailPrint "Removing the ${APP_NAME}'s data from $Home..."
  !insertmacro DELETE_STATE_FILE "$Home" "environments" "json"
  !insertmacro DELETE_STATE_FILE "$Home" "last-good" "json"
  !insertmacro DELETE_STATE_FILE "$Home" "last-tests" "json"
  !insertmacro DELETE_STATE_FILE "$Home" "window" "json"
  ; The journal stays when the wizard's PATH changes could not be undone: it is what undoes them.
  ${If} $UndoPath != 1
  ${OrIf} $PathUndone == 1
    !insertmacro DELETE_STATE_FILE "$Home" "path-journal" "json"
  ${EndIf}
  !insertmacro DELETE_STATE_FILE "$Home\cache\compat" "index" "json"
  !insertmacro DELETE_STATE_FILE "$Home\cache\compat" "resolutions" "json"
  !insertmacro DELETE_STATE_FILE "$Home\cache\compat" "bundle" "json"
  !insertmacro DELETE_STATE_FILE "$Home\cache\compat" "meta" "json"
  Delete "$Home\cache\compat\bundle.json.sig"
  ; uv's Linux binaries for WSL distributions (workflow/envs/wsl_uv.py), each with its record.
  Delete "$Home\cache\uv\uv-*"
  Delete "$Home\cache\uv\.uv-*"
  Delete "$Home\logs\env-create-*.log"
  !insertmacro DELETE_STATE_FILE "$Home\pending" "env-*" "json"
  !insertmacro DELETE_STATE_FILE "$Home\pending" "remove-*" "json"
  !insertmacro DELETE_STATE_FILE "$Home\pending" "wsl-route" "json"
  Delete "$Home\locks\env-*.lock"
  Delete "$Home\locks\prefix-*.lock"
  ; Folders only when empty: never what someone else put there.
  RMDir "$Home\cache\compat"
  RMDir "$Home\cache\uv"
  RMDir "$Home\cache"
  RMDir "$Home\logs"
  RMDir "$Home\pending"
  RMDir "$Home\locks"
  RMDir "$Home\envs"
  RMDir "$Home"
  ${If} ${FileExists} "$Home\*.*"
    DetailPrint "$Home is kept: it holds files the ${APP_NAME} did not make, or could not prove it made."
  ${EndIf}
FunctionEnd

Function un.onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/ALLUSERS" $R1
  ${IfNot} ${Errors}
    StrCpy $AllUsers 1
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/UNDOPATH" $R1
  ${IfNot} ${Errors}
    StrCpy $UndoPath 1
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/REMOVEDATA" $R1
  ${IfNot} ${Errors}
    StrCpy $RemoveData 1
  ${EndIf}
  !insertmacro FIND_HOME
  ${If} $AllUsers == 1
    !insertmacro IS_ADMIN $R3
    ${If} $R3 != "admin"
      StrCpy $R4 "/ALLUSERS"
      ${If} ${Silent}
        StrCpy $R4 "$R4 /S"
      ${EndIf}
      ${If} $UndoPath == 1
        StrCpy $R4 "$R4 /UNDOPATH"
      ${EndIf}
      ${If} $RemoveData == 1
        StrCpy $R4 "$R4 /REMOVEDATA"
      ${EndIf}
      ExecShellWait "runas" "$INSTDIR\uninstall.exe" "$R4"
      SetErrorLevel ${ERROR_ELEVATION_REQUIRED}
      Quit
    ${EndIf}
    SetShellVarContext all
  ${EndIf}
FunctionEnd

Section "Uninstall"
  Call un.WaitUntilClosed
  ; The questions first, then the work.
  ${If} $UndoPath != 1
  ${AndIfNot} ${Silent}
  ${AndIf} ${FileExists} "$Journal"
    MessageBox MB_YESNO|MB_ICONQUESTION \
      "Also undo the changes the ${APP_NAME} made to your PATH?$\r$\n$\r$\nNo leaves PATH as it is now (the folder of this program excepted: it is taken off PATH either way)." \
      /SD IDNO IDNO keep_path
    StrCpy $UndoPath 1
    keep_path:
  ${EndIf}
  ${If} $RemoveData != 1
  ${AndIfNot} ${Silent}
  ${AndIf} ${FileExists} "$Home\*.*"
    ${GetSize} "$Home" "/S=0K" $R0 $R1 $R2
    Call un.SizeText
    MessageBox MB_YESNO|MB_ICONQUESTION|MB_DEFBUTTON2 \
      "Also remove the Python environments the ${APP_NAME} made and its data ($R0 in $Home)?$\r$\n$\r$\nEnvironments it made in other folders go too; nothing it cannot prove it made is removed.$\r$\n$\r$\nNo keeps them: installing the wizard again finds them." \
      /SD IDNO IDNO keep_data
    StrCpy $RemoveData 1
    keep_data:
  ${EndIf}

  ${If} $UndoPath == 1
    DetailPrint "Undoing the PATH changes of the ${APP_NAME}..."
    ; Every change, newest first, checked as a whole before any is written (exit 1: none made).
    ; It also takes them out of the last good state, so a later install reports no drift.
    nsExec::ExecToLog '"$INSTDIR\gpuwizard.exe" path undo --all'
    Pop $R0
    ${If} $R0 == 0
      StrCpy $PathUndone 1
    ${Else}
      ; This program is about to go: what still runs afterwards is a reinstall, which keeps
      ; the journal ($Journal) and can undo them then.
      DetailPrint "PATH was not changed back (exit $R0). Your PATH journal stays in $Home: install the ${APP_NAME} again and run $\"$INSTDIR\gpuwizard.exe$\" path undo --all."
      ${IfNot} ${Silent}
        MessageBox MB_OK|MB_ICONEXCLAMATION \
          "The PATH changes could not all be undone; the details say why.$\r$\n$\r$\nThe record of them stays in $Home: install the ${APP_NAME} again, then run$\r$\n$\"$INSTDIR\gpuwizard.exe$\" path undo --all"
      ${EndIf}
    ${EndIf}
  ${EndIf}
  ; The installer's own PATH entry goes whatever was answered above (a no-op once undone).
  Call un.RemoveOwnPathEntry

  ${If} $RemoveData == 1
    Call un.RemoveData
  ${Else}
    ; What stays, said: every environment the wizard made, those inside WSL 2 named with their
    ; distribution (they live there, under ~/.local/share/gpuwizard, not in $Home).
    DetailPrint "Kept: the environments the ${APP_NAME} made (installing it again finds them):"
    nsExec::ExecToLog '"$INSTDIR\gpuwizard.exe" env list'
    Pop $R0
  ${EndIf}

  Delete "${SHORTCUT}"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\gpuwizard.exe"
  Delete "$INSTDIR\gpuwizardw.exe"
  Delete "$INSTDIR\uv.exe"
  Delete "$INSTDIR\uninstall.exe"
  ; Only if empty: never what the user added to the folder.
  RMDir "$INSTDIR"
  DeleteRegKey SHCTX "${UNINSTALL_KEY}"
SectionEnd
