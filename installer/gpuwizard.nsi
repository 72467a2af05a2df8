; The GPU Setup Wizard's installer (issue 9), compiled by installer/build.py:
;   makensis -DVERSION=0.1.0 -DVI_VERSION=0.1.0.0 -DAPP_DIR=<PyInstaller folder> -DICON=<.ico>
;            -DOUT_FILE=<gpuwizard-setup-0.1.0.exe> installer/gpuwizard.nsi
;
; Per user by default: into %LOCALAPPDATA%\Programs\GPU Setup Wizard, registered under HKCU, no
; administrator rights and no UAC prompt (RequestExecutionLevel user; the folder Windows itself
; suggests for per-user programs, FOLDERID_UserProgramFiles:
; https://learn.microsoft.com/en-us/windows/win32/shell/knownfolderid).
; For all users with /ALLUSERS: into Program Files, registered under HKLM; that needs an
; administrator, so an unelevated installer starts itself again through UAC ("runas").
;
; Command line (NSIS's own: /S silent, /D=DIR the folder, last and unquoted):
;   setup.exe [/S] [/ALLUSERS] [/D=DIR]
;   uninstall.exe [/S] [/ALLUSERS] [/UNDOPATH]
; The uninstaller asks whether to undo the wizard's PATH changes (`gpuwizard path undo --all`);
; a silent one undoes them only when /UNDOPATH is given.
;
; The wizard's own data (PATH journal, last good snapshot, environments list) lives in
; %LOCALAPPDATA%\gpuwizard or GPUWIZARD_HOME (gpuwizard.workflow.state.home), never in the program
; folder: installing over an older version and uninstalling both leave it alone.

Target amd64-unicode
RequestExecutionLevel user
ManifestDPIAware true
SetCompressor /SOLID lzma

!include MUI2.nsh
!include LogicLib.nsh
!include FileFunc.nsh

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

Name "${APP_NAME}"
OutFile "${OUT_FILE}"
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
Var UndoPath      ; "1": the uninstaller undoes the wizard's PATH changes
Var Journal       ; the PATH journal of the user who runs the uninstaller

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\gpuwizardw.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Open the ${APP_NAME}"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; Leaves "admin" or another account type on the stack (UserInfo plug-in; an unelevated
; administrator under UAC is not "admin").
!macro IS_ADMIN RESULT
  UserInfo::GetAccountType
  Pop ${RESULT}
!macroend

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
  ${EndIf}
  ; Installing over an earlier version: into its folder, unless /D says otherwise.
  ReadRegStr $R4 SHCTX "${UNINSTALL_KEY}" "InstallLocation"
  ${If} $R4 != ""
  ${AndIf} $R2 == 1
    StrCpy $INSTDIR $R4
  ${EndIf}
FunctionEnd

Section "${APP_NAME}" SectionProgram
  SectionIn RO
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
  ; The journal of the user running this (before the context may switch to all users).
  ReadEnvStr $R2 "GPUWIZARD_HOME"
  ${If} $R2 == ""
    StrCpy $R2 "$LOCALAPPDATA\${APP_ID}"
  ${EndIf}
  StrCpy $Journal "$R2\${JOURNAL_NAME}"
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
      ExecShellWait "runas" "$INSTDIR\uninstall.exe" "$R4"
      SetErrorLevel ${ERROR_ELEVATION_REQUIRED}
      Quit
    ${EndIf}
    SetShellVarContext all
  ${EndIf}
FunctionEnd

Section "Uninstall"
  ${If} $UndoPath != 1
  ${AndIfNot} ${Silent}
  ${AndIf} ${FileExists} "$Journal"
    MessageBox MB_YESNO|MB_ICONQUESTION \
      "Also undo the changes the ${APP_NAME} made to your PATH?$\r$\n$\r$\nNo leaves PATH as it is now." \
      /SD IDNO IDNO keep_path
    StrCpy $UndoPath 1
    keep_path:
  ${EndIf}
  ${If} $UndoPath == 1
    DetailPrint "Undoing the PATH changes of the ${APP_NAME}..."
    ; Every change, newest first, checked as a whole before any is written (exit 1: none made).
    nsExec::ExecToLog '"$INSTDIR\gpuwizard.exe" path undo --all'
    Pop $R0
    ${If} $R0 != 0
      DetailPrint "PATH was not changed back (exit $R0); 'gpuwizard path history' lists the changes."
      ${IfNot} ${Silent}
        MessageBox MB_OK|MB_ICONEXCLAMATION \
          "The PATH changes could not all be undone; the details say why."
      ${EndIf}
    ${EndIf}
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
